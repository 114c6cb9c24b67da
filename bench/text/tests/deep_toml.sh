#!/bin/sh
# Python's tomllib gives up on the nested arrays: RecursionError (the input valid otherwise: support/check_deep.py).
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 python3 -S "$TEXT_BENCH/support/check_deep.py" toml matrix.toml 2>&1 |
    grep -q "RecursionError: maximum recursion depth exceeded"
