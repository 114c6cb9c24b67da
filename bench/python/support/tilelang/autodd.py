"""Stand-in for TileLang's `tilelang.autodd` module: its `__freeze__` is minrepro's own (the
repository's `python/minrepro`), with the same runtime behaviour as TileLang's: a no-op context
manager that is also the identity function."""

import os
import sys

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4)
sys.path.append(os.path.join(REPO, "python"))

from minrepro import __freeze__  # noqa: E402,F401
