"""Binary operators."""
from errors import EvaluationError
from nodes import Node


class BinOp(Node):
    symbol = "?"

    def __init__(self, left, right):
        self.left = left
        self.right = right

    def compute(self, env):
        return self.apply(self.left.evaluate(env), self.right.evaluate(env))

    def apply(self, a, b):
        raise NotImplementedError

    def __str__(self):
        return "(%s %s %s)" % (self.left, self.symbol, self.right)


class Add(BinOp):
    symbol = "+"

    def apply(self, a, b):
        return a + b


class Sub(BinOp):
    symbol = "-"

    def apply(self, a, b):
        return a - b


class Mul(BinOp):
    symbol = "*"

    def apply(self, a, b):
        return a * b


class Div(BinOp):
    symbol = "/"

    def apply(self, a, b):
        if b == 0:
            raise EvaluationError("division by zero in %s" % self)
        return a / b


OPERATORS = {"+": Add, "-": Sub, "*": Mul, "/": Div}
