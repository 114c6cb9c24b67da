class VMError(Exception):
    pass


raise VMError("stack underflow at pc=34 after 61 steps")
