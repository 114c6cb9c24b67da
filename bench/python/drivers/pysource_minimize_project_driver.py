"""Drive pysource-minimize's multi-file mode (`pysource_minimize.minimize_all`) on a project
directory with bench/python/project_interesting.sh, keeping the smallest interesting set of
files in OUTPUT_DIR as it goes (a file the search deletes is left out).

Runs with the interpreter of the venv where pysource-minimize is installed. Every candidate set
is written into a fresh temporary directory and judged there (the test counts the run).

Usage: pysource_minimize_project_driver.py PROJECT_DIR OUTPUT_DIR
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pysource_minimize import minimize_all


def write_tree(root, files):
    for rel, text in files.items():
        if text is not None:
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def publish(output, files):
    """Replace OUTPUT_DIR by `files` (a new directory renamed into place)."""
    staging = output.with_name(output.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    write_tree(staging, files)
    shutil.rmtree(output, ignore_errors=True)
    staging.rename(output)


def main():
    project, output = Path(sys.argv[1]), Path(sys.argv[2])
    sources = {p.relative_to(project): p.read_text(encoding="utf-8")
               for p in sorted(project.rglob("*.py")) if "__pycache__" not in p.parts}
    test = os.path.join(os.environ["BENCH_PY_DIR"], "project_interesting.sh")
    size = lambda files: sum(len(t) for t in files.values() if t is not None)
    best = [size(sources)]

    def checker(files, current):
        with tempfile.TemporaryDirectory(prefix="psm-") as tmp:
            write_tree(Path(tmp), files)
            ok = subprocess.run([test, tmp], cwd=tmp).returncode == 0
        if ok and size(files) < best[0]:
            best[0] = size(files)
            publish(output, files)
        return ok

    publish(output, sources)
    publish(output, minimize_all(sources, checker))


if __name__ == "__main__":
    main()
