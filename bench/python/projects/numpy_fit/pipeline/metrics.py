"""Regression metrics."""
import numpy as np


def mse(y, p):
    return float(np.mean((y - p) ** 2))


def r2(y, p):
    return 1.0 - float(np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2))
