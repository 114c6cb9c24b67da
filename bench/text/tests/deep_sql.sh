#!/bin/sh
# SQLite's parser overflows its stack on the nested parentheses (the input valid otherwise: support/check_deep.py).
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 python3 -S "$TEXT_BENCH/support/check_deep.py" sql query.sql 2>&1 |
    grep -q "sqlite3.OperationalError: parser stack overflow"
