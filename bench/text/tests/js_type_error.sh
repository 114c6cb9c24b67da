#!/bin/sh
# node: reading a property of a missing loyalty tier throws a TypeError.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 node orders.js 2>&1 | grep -q "TypeError: Cannot read properties of undefined (reading 'total')"
