"""Sibling module of main.py."""


def make_values(n):
    return [i * i for i in range(n)]


def check(values):
    if sum(values) > 10:
        raise OverflowError("sibling helper overflow")
