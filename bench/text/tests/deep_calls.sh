#!/bin/sh
# a linter's recursive visitor overflows on the nested calls: RecursionError (the input valid otherwise: support/check_deep.py).
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 python3 -S "$TEXT_BENCH/support/check_deep.py" calls calls.py 2>&1 |
    grep -q "RecursionError: maximum recursion depth exceeded"
