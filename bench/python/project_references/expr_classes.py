class EvaluationError(Exception):
    pass


class Div:
    def apply(self, a, b):
        if b == 0:
            raise EvaluationError("division by zero in (max(x, y) / (y - 3))")


Div().apply(6, 0)
