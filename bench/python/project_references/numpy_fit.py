import numpy as np


class LinearModel:
    def predict(self, X):
        return np.dot(X, np.zeros(4))


LinearModel().predict(np.ones((12, 3)))
