"""Sensor readings calibrated with numpy: offsets broadcast to the grid of a sensor profile."""
import numpy as np


PROFILES = {
    "bench": {"rows": 3, "cols": 4, "gain": 2.0},
    "field": {"rows": 5, "cols": 4, "gain": 0.5},
}


class Grid:
    def __init__(self, profile, samples):
        self.rows = profile["rows"]
        self.cols = profile["cols"]
        self.gain = profile["gain"]
        self.values = np.arange(samples, dtype=float).reshape(-1, self.cols)[: self.rows]

    def offsets(self, readings):
        means = readings.mean(axis=0)
        return np.round(means - means.min(), 2)[np.newaxis, :]

    def calibrate(self, baseline):
        offsets = np.broadcast_to(baseline, (self.rows, self.cols))
        return (self.values - offsets) * self.gain


def baseline_for(readings, keep):
    rows = readings[: keep]
    centred = rows - rows.mean()
    return np.abs(centred).round(1)


def run(names, samples):
    reports = {}
    reference = None
    for name in names:
        grid = Grid(PROFILES[name], samples)
        if reference is None:
            reference = baseline_for(grid.values, grid.rows)
        calibrated = grid.calibrate(reference)
        reports[name] = float(calibrated.sum())
    return reports


if __name__ == "__main__":
    print(run(["bench", "field"], 24))
