"""Priority job scheduler with slot limits. Setup lines marked `# autodd: freeze` (the
scheduler's construction and its audit switch) must survive reduction even though the failure
does not need them."""

import heapq


class DeadlineError(Exception):
    pass


class Job:
    def __init__(self, name, duration, deadline, priority):
        self.name = name
        self.duration = duration
        self.deadline = deadline
        self.priority = priority

    def __lt__(self, other):
        return (self.priority, self.deadline, self.name) < (other.priority, other.deadline, other.name)


class Scheduler:
    def __init__(self, slots):
        self.slots = slots
        self.queue = []
        self.finished = {}
        self.audit = False
        self.log = []

    def submit(self, job):
        heapq.heappush(self.queue, job)
        if self.audit:
            self.log.append("submit %s p%d" % (job.name, job.priority))

    def run(self):
        running = []
        clock = 0
        while self.queue or running:
            while self.queue and len(running) < self.slots:
                job = heapq.heappop(self.queue)
                heapq.heappush(running, (clock + job.duration, job.name, job))
            end, name, job = heapq.heappop(running)
            clock = end
            self.finished[name] = clock
            if self.audit:
                self.log.append("t=%d done %s" % (clock, name))
        return clock


def make_jobs(count):
    jobs = []
    for n in range(count):
        duration = 2 + (n * 7) % 5
        deadline = 6 + 3 * n
        priority = (n * 3) % 4
        jobs.append(Job("j%d" % n, duration, deadline, priority))
    return jobs


def check_deadlines(scheduler, jobs):
    late = []
    for job in jobs:
        done = scheduler.finished[job.name]
        if done > job.deadline:
            late.append("job %s finished at %d > %d" % (job.name, done, job.deadline))
    if late:
        raise DeadlineError("deadline missed: " + late[0])


def main():
    sched = Scheduler(slots=3)  # autodd: freeze
    sched.audit = True  # autodd: freeze
    jobs = make_jobs(10)
    for job in jobs:
        sched.submit(job)
    makespan = sched.run()
    print("makespan", makespan, "log entries", len(sched.log))
    check_deadlines(sched, jobs)


main()
