//! Processor time from the operating system's accounting (for statistics and the speculation
//! policy; never for a decision that changes a result).

use std::time::Duration;

fn usage(who: libc::c_int) -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// User + system time of this process (all threads, no children) so far.
pub fn own_cpu() -> Duration {
    usage(libc::RUSAGE_SELF)
}

/// User + system time of every waited-for descendant so far.
pub fn children_cpu() -> Duration {
    usage(libc::RUSAGE_CHILDREN)
}
