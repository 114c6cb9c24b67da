#!/bin/sh
# g++: a move-only plugin (a unique_ptr member) returned by copy, "use of deleted function".
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 g++ -std=c++17 -fsyntax-only registry.cpp 2>&1 |
    grep -q "error: use of deleted function"
