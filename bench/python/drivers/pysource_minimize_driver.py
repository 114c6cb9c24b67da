"""Drive pysource-minimize (its library API, `pysource_minimize.minimize`) with the shared
interestingness test, keeping the smallest interesting candidate in OUTPUT as it goes.

Runs with the benchmark venv's interpreter (where pysource-minimize is installed). Every
candidate is written under the case's own file name into a fresh temporary directory and judged
by bench/python/interesting.sh, which counts the run. (The package's own CLI needs extra
dependencies and a terminal UI; the library call is the same search.)

Usage: pysource_minimize_driver.py SOURCE OUTPUT
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from pysource_minimize import minimize


def main():
    source_path, output = Path(sys.argv[1]), Path(sys.argv[2])
    source = source_path.read_text(encoding="utf-8")
    test = os.path.join(os.environ["BENCH_PY_DIR"], "interesting.sh")
    best = [source]

    def checker(candidate):
        with tempfile.TemporaryDirectory(prefix="psm-") as tmp:
            path = Path(tmp) / source_path.name
            path.write_text(candidate, encoding="utf-8")
            ok = subprocess.run([test, str(path)], cwd=tmp).returncode == 0
        if ok and len(candidate) < len(best[0]):
            best[0] = candidate
            output.write_text(candidate, encoding="utf-8")
        return ok

    output.write_text(source, encoding="utf-8")
    result = minimize(source, checker)
    output.write_text(result, encoding="utf-8")


if __name__ == "__main__":
    main()
