"""Ridge regression by the normal equations."""
import numpy as np


class LinearModel:
    def __init__(self, l2=0.0):
        self.l2 = l2
        self.coef_ = None

    def fit(self, X, y):
        gram = X.T @ X + self.l2 * np.eye(X.shape[1])
        self.coef_ = np.linalg.solve(gram, X.T @ y)
        return self

    def predict(self, X):
        return np.dot(X, self.coef_)
