"""Invoice lines, with their encoder."""
from .codecs import register


class Line:
    def __init__(self, label, amount):
        self.label = label
        self.amount = amount


@register(__name__, "Line")
def encode_line(line):
    return {"label": line.label, "amount": round(line.amount, 2)}
