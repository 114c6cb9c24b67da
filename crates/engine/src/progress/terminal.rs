//! The width of the terminal the live line is drawn on, so that the line is cut to fit instead
//! of wrapping (a wrapped line is not erased by the next `\r\x1b[K` redraw, and every redraw
//! then leaves a line behind). The width is read from stderr's terminal and read again after
//! every `SIGWINCH` (a resized window).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

/// Set by the `SIGWINCH` handler (and at start): the width must be read again.
static RESIZED: AtomicBool = AtomicBool::new(true);

static WATCH: Once = Once::new();

/// Only stores a flag: all a signal handler may safely do.
extern "C" fn on_resize(_: libc::c_int) {
    RESIZED.store(true, Ordering::SeqCst);
}

/// Installs the `SIGWINCH` handler once per process (with `SA_RESTART`, so that no system call
/// elsewhere fails with `EINTR` when the window is resized). Children get the default
/// disposition back when they exec.
pub(super) fn watch_resizes() {
    WATCH.call_once(|| {
        // SAFETY: a zeroed sigaction is valid; the handler only stores to an atomic.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_resize as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGWINCH, &action, std::ptr::null_mut());
        }
    });
}

/// Whether the window was resized since the last call (true the first time).
pub(super) fn take_resized() -> bool {
    RESIZED.swap(false, Ordering::SeqCst)
}

/// Columns of stderr's terminal, if it is one and says.
pub(super) fn columns() -> Option<usize> {
    // SAFETY: TIOCGWINSZ writes one winsize into the zeroed struct.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let status = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut size) };
    (status == 0 && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

/// The fields of a line joined by ` | `, as many of them as fit in `columns` (the first field
/// always, cut with `…` when it alone is too long), keeping one column free: a line that
/// fills the last column makes some terminals wrap before the next redraw.
pub(super) fn fit(fields: &[String], columns: Option<usize>) -> String {
    let Some(columns) = columns else {
        return fields.join(" | ");
    };
    let room = columns.saturating_sub(1).max(1);
    let mut line = String::new();
    for field in fields {
        let joined = if line.is_empty() {
            field.clone()
        } else {
            format!("{line} | {field}")
        };
        if joined.chars().count() > room {
            break;
        }
        line = joined;
    }
    if line.is_empty() {
        let first = fields.first().map(String::as_str).unwrap_or("");
        line = first.chars().take(room.saturating_sub(1)).collect();
        line.push('…');
    }
    line
}

#[cfg(test)]
mod tests {
    use super::fit;

    fn fields() -> Vec<String> {
        [
            "minrepro file: [tokens] 80 tokens (was 120)",
            "3 s",
            "tried 2",
            "runs 9",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn fields_that_do_not_fit_are_left_out_and_a_long_first_one_is_cut() {
        assert_eq!(
            fit(&fields(), None),
            "minrepro file: [tokens] 80 tokens (was 120) | 3 s | tried 2 | runs 9"
        );
        assert_eq!(
            fit(&fields(), Some(60)),
            "minrepro file: [tokens] 80 tokens (was 120) | 3 s | tried 2"
        );
        let cut = fit(&fields(), Some(20));
        assert_eq!(cut, "minrepro file: [to…");
        assert_eq!(cut.chars().count(), 19);
    }
}
