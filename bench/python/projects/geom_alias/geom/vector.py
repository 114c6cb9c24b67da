"""2-D vectors as tuples."""
import math


def add(a, b):
    return (a[0] + b[0], a[1] + b[1])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1])


def scale(a, k):
    return (a[0] * k, a[1] * k)


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1]


def length(a):
    return math.hypot(a[0], a[1])


def normalize(a):
    n = length(a)
    if n == 0:
        raise ValueError("cannot normalize zero-length vector %r" % (a,))
    return (round(a[0] / n, 6), round(a[1] / n, 6))
