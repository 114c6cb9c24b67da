#!/bin/sh
# The ledger prints bank balance 14707, a number the source does not spell out.
. "$TEXT_BENCH/support/prelude.sh"
grep -q 14707 ledger.c && exit 1
timeout 10 gcc -O1 -w ledger.c -o prog 2>/dev/null || exit 1
timeout 2 ./prog 2>/dev/null | grep -q "bank 14707"
