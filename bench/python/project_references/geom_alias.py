import math


def normalize(a):
    if math.hypot(*a) == 0:
        raise ValueError("cannot normalize zero-length vector %r" % (a,))


normalize((-0.0, 0.0))
