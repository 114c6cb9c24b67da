#!/bin/sh
# A preprocessed C++17 unit: std::map keyed by a struct without operator<.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 g++ -std=c++17 -fsyntax-only unit.cpp 2>&1 | grep -qF -- "error: no match for 'operator<' (operand types are 'const Point' and 'const Point')"
