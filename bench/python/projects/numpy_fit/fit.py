"""Fit a ridge model on a synthetic data set and score a second design."""
import numpy as np

from pipeline import features, loader
from pipeline.model import LinearModel

# --- main ---
# --- warm-up ---
data = loader.make_dataset(rows=12, seed=4)
X = features.design_matrix(data, ["age", "income", "visits"])
model = LinearModel(l2=0.1).fit(X, data["target"])
print(np.round(model.coef_, 3))
print(np.round(model.predict(X)[:3], 3))
reduced = features.design_matrix(data, ["age", "income"])
print(np.round(model.predict(reduced), 3))
