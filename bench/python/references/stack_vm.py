class VMError(Exception):
    pass


class Machine:
    def pop(self):
        raise VMError("stack underflow at pc=34 after 61 steps")


Machine().pop()
