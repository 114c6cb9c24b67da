"""Evaluate a few arithmetic expressions over an environment."""
import evaluator
from reader import parse

# --- main ---
# --- warm-up ---
env = {"x": 6, "y": 3, "z": 0}
for src in ["x + y * 2", "(x - y) / y", "abs(z - x) * 2", "max(x, y) / (y - 3)"]:
    tree = parse(src)
    print(src, "=", evaluator.run(tree, env))
