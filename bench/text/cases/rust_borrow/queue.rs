use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    Low = 0,
    Normal = 1,
    High = 2,
}

#[derive(Debug, Clone)]
pub struct Job {
    pub id: u64,
    pub priority: Priority,
    pub payload: Vec<u8>,
    pub attempts: u32,
}

pub struct Scheduler {
    queues: [VecDeque<Job>; 3],
    next_id: u64,
    finished: Vec<u64>,
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler {
            queues: [VecDeque::new(), VecDeque::new(), VecDeque::new()],
            next_id: 1,
            finished: Vec::new(),
        }
    }

    pub fn submit(&mut self, priority: Priority, payload: Vec<u8>) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.queues[priority as usize].push_back(Job { id, priority, payload, attempts: 0 });
        id
    }

    pub fn next(&mut self) -> Option<Job> {
        for queue in self.queues.iter_mut().rev() {
            if let Some(job) = queue.pop_front() {
                return Some(job);
            }
        }
        None
    }

    pub fn retry(&mut self, mut job: Job) {
        job.attempts += 1;
        if job.attempts < 3 {
            let slot = job.priority as usize;
            self.queues[slot].push_back(job);
        }
    }

    pub fn pending(&self) -> usize {
        self.queues.iter().map(|q| q.len()).sum()
    }

    pub fn promote_oldest(&mut self) {
        let low = &self.queues[0];
        if let Some(first) = low.front() {
            self.queues[2].push_back(first.clone());
        }
        println!("promoted from {} jobs", low.len());
    }

    pub fn checksum(&self) -> u64 {
        let mut sum = 0u64;
        for queue in &self.queues {
            for job in queue {
                sum = sum.wrapping_mul(31).wrapping_add(job.id);
                for byte in &job.payload {
                    sum = sum.wrapping_add(*byte as u64);
                }
            }
        }
        sum
    }
}

pub fn run(steps: usize) -> (usize, u64) {
    let mut s = Scheduler::new();
    for i in 0..steps {
        let p = match i % 3 {
            0 => Priority::Low,
            1 => Priority::Normal,
            _ => Priority::High,
        };
        s.submit(p, vec![i as u8; i % 5]);
    }
    while let Some(job) = s.next() {
        if job.id % 4 == 0 {
            s.retry(job);
        } else {
            s.finished.push(job.id);
        }
    }
    s.promote_oldest();
    (s.finished.len(), s.checksum())
}
