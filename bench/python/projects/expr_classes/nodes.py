"""The base of the expression tree, constants and variables."""
from errors import EvaluationError


class Node:
    def evaluate(self, env):
        return self.compute(env)

    def compute(self, env):
        raise NotImplementedError(type(self).__name__)


class Const(Node):
    def __init__(self, value):
        self.value = value

    def compute(self, env):
        return self.value

    def __str__(self):
        return str(self.value)


class Var(Node):
    def __init__(self, name):
        self.name = name

    def compute(self, env):
        if self.name not in env:
            raise EvaluationError("unbound variable %s" % self.name)
        return env[self.name]

    def __str__(self):
        return self.name
