#!/bin/sh
# A preprocessed C++14 unit: std::sort on std::list iterators (no operator-).
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 g++ -std=c++14 -fsyntax-only unit.cpp 2>&1 | grep -qF -- "error: no match for 'operator-' (operand types are 'std::_List_iterator<int>'"
