#!/bin/sh
# A preprocessed C++20 unit: a vector of unique_ptr copied (the copy constructor is deleted).
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 g++ -std=c++20 -fsyntax-only unit.cpp 2>&1 | grep -qF -- "error: use of deleted function 'std::unique_ptr<"
