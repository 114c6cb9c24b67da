class DeadlineError(Exception):
    pass


class Scheduler:
    def __init__(self, slots):
        pass


sched = Scheduler(slots=3)  # autodd: freeze
sched.audit = True  # autodd: freeze


def check_deadlines():
    raise DeadlineError("deadline missed: job j1 finished at 13 > 9")


check_deadlines()
