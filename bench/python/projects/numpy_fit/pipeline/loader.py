"""Synthetic data sets."""
import numpy as np


def make_dataset(rows, seed):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, size=rows).astype(float)
    income = rng.normal(40_000, 9_000, size=rows)
    visits = rng.poisson(3, size=rows).astype(float)
    target = 0.3 * age + income / 10_000 + 2 * visits + rng.normal(0, 1, size=rows)
    return {"age": age, "income": income, "visits": visits, "target": target}
