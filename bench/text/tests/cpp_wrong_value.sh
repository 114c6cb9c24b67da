#!/bin/sh
# The scene prints a scaled area of 755, a number the source does not spell out.
. "$TEXT_BENCH/support/prelude.sh"
grep -q 755 shapes.cpp && exit 1
timeout 20 g++ -O1 -w shapes.cpp -o prog 2>/dev/null || exit 1
timeout 2 ./prog 2>/dev/null | grep -q "scaled area 755"
