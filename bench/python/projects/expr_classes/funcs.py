"""Calls of built-in functions."""
from errors import EvaluationError
from nodes import Node

FUNCTIONS = {"max": max, "min": min, "abs": abs}


class Call(Node):
    def __init__(self, name, args):
        self.name = name
        self.args = args

    def compute(self, env):
        if self.name not in FUNCTIONS:
            raise EvaluationError("unknown function %s" % self.name)
        return FUNCTIONS[self.name](*[a.evaluate(env) for a in self.args])

    def __str__(self):
        return "%s(%s)" % (self.name, ", ".join(map(str, self.args)))
