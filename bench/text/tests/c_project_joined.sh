#!/bin/sh
# The mixer's definition of `scale` conflicts with its declaration in util.h.
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 gcc -c -Wall mixer.c -o /dev/null 2>&1 |
    grep -q "error: conflicting types for 'scale'"
