#!/bin/sh
# Python's json parser (C scanner) gives up on the document's nesting: RecursionError (the input valid otherwise: support/check_deep.py).
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 python3 -S "$TEXT_BENCH/support/check_deep.py" json nest.json 2>&1 |
    grep -q "RecursionError: maximum recursion depth exceeded while decoding"
