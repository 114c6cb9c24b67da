#!/bin/sh
# clang++ finds no `serialize` overload for a vector element.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 clang++ -fsyntax-only -std=c++17 serial.cpp 2>&1 |
    grep -q "error: no matching function for call to 'serialize'"
