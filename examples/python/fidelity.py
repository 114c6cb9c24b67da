"""A ValueError whose message is spelled on the raising line.

Deleting `make_error` would leave a NameError whose traceback echoes the
raising line, needle included; the fidelity guard keeps the ValueError.
"""


def make_error(text):
    return ValueError(text)


def validate(limit, value):
    if value > limit:
        raise make_error("needle: value above limit")
    return value


print(validate(10, 3))
validate(2, 5)
