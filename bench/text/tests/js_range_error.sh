#!/bin/sh
# node: a negative grid size makes `new Array` throw a RangeError.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 node grid.js 2>&1 | grep -q "RangeError: Invalid array length"
