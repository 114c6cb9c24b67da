class DeadlineError(Exception):
    pass


class Scheduler:
    def __init__(self, slots):
        pass


sched = Scheduler(slots=3)  # autodd: freeze
sched.audit = True  # autodd: freeze
raise DeadlineError("deadline missed: job j1 finished at 13 > 9")
