#!/bin/sh
# node: the program prints a checksum (81154) that the source does not spell out.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 node stats.js 2>&1 | grep -q "checksum 81154"
