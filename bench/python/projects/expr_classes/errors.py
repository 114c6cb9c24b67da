"""Errors of the expression package."""


class ExprError(Exception):
    pass


class ParseError(ExprError):
    pass


class EvaluationError(ExprError):
    pass
