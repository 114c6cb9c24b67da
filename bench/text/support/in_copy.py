"""Runs a bench/text test on one candidate file for the tools that hand the test a file path
(picire, Lithium): the candidate is copied under its case's file name into a fresh directory,
which becomes the test's working directory, as C-Reduce, C-Vise and `minrepro file` do.

As a command: `in_copy.py TEST NAME CANDIDATE` exits with the test's status. As a Lithium
condition module: `lithium --lines in_copy.py TEST NAME FILE` (Lithium passes the arguments after
the module to `interesting`)."""

import os
import shutil
import subprocess
import sys
import tempfile


def run(test, name, candidate):
    """The test's exit status on a copy of `candidate` named `name`."""
    with tempfile.TemporaryDirectory(prefix="text-bench-") as work:
        shutil.copyfile(candidate, os.path.join(work, name))
        return subprocess.run([test], cwd=work, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def interesting(cli_args=None, temp_prefix=None):
    """Lithium's condition entry point: arguments TEST NAME FILE."""
    test, name, candidate = cli_args[-3:]
    return run(test, name, candidate) == 0


if __name__ == "__main__":
    sys.exit(run(*sys.argv[1:4]))
