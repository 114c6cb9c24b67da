"""Design matrices: standardized columns and an intercept."""
import numpy as np


def standardize(column):
    std = column.std()
    return (column - column.mean()) / (std if std else 1.0)


def design_matrix(data, columns):
    parts = [np.ones(len(data[columns[0]]))]
    parts += [standardize(data[name]) for name in columns]
    return np.column_stack(parts)
