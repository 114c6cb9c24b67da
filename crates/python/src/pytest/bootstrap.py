# minrepro python --pytest: runs pytest on the command line's arguments (as `python -m pytest`
# does) with one plugin object, and once pytest is done prints the first exception it reported
# (a failing test or fixture) as Python prints an uncaught exception: a traceback
# on stderr. The fidelity guard reads a candidate's failure from there, as it reads a script's;
# pytest's own report goes to stdout. Then one line names the chosen parametrize case (its
# index in each parametrize list), which the conversion into a plain script needs.
import json
import os
import sys
import traceback

import pytest


class MinreproFailure:
    exception = None
    indices = None

    def pytest_exception_interact(self, node, call, report):
        # Only a test's own failure (its setup, call or teardown) counts: an error collecting
        # (importing) its module means the test never ran.
        if self.exception is None and call.excinfo is not None and isinstance(node, pytest.Item):
            self.exception = call.excinfo.value
            callspec = getattr(node, "callspec", None)
            self.indices = dict(getattr(callspec, "indices", {}) or {})


failure = MinreproFailure()
status = pytest.main(sys.argv[1:], plugins=[failure])
sys.stdout.flush()
if failure.exception is not None:
    error = failure.exception
    # pytest's own frames before the first one in the project say nothing of the failure and
    # would fill the captured tail: the traceback starts in the project (the working directory).
    here = os.getcwd() + os.sep
    start = error.__traceback__
    while start is not None and not start.tb_frame.f_code.co_filename.startswith(here):
        start = start.tb_next
    traceback.print_exception(type(error), error, start or error.__traceback__)
    print("minrepro-pytest-case: " + json.dumps(failure.indices, sort_keys=True), file=sys.stderr)
sys.exit(int(status))
