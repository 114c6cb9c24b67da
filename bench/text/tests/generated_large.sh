#!/bin/sh
# gcc reports a division by zero inside fn_311 of the generated file.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 gcc -fsyntax-only -Wall gen.c 2>&1 | grep -A1 "In function 'fn_311'" |
    grep -q "division by zero"
