"""2x2 matrices."""
import math


class Matrix:
    def __init__(self, a, b, c, d):
        self.rows = ((a, b), (c, d))

    @classmethod
    def rotation(cls, degrees):
        t = math.radians(degrees)
        return cls(math.cos(t), -math.sin(t), math.sin(t), math.cos(t))

    def apply(self, p):
        (a, b), (c, d) = self.rows
        return (round(a * p[0] + b * p[1], 9), round(c * p[0] + d * p[1], 9))

    def compose(self, other):
        (a, b), (c, d) = self.rows
        (e, f), (g, h) = other.rows
        return Matrix(a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)
