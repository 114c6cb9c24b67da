#!/bin/sh
# gcc warns that `consume` gets an integer where it expects a pointer.
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 gcc -c -Wall sensor.c -o /dev/null 2>&1 |
    grep -q "passing argument 2 of 'consume' makes pointer from integer without a cast"
