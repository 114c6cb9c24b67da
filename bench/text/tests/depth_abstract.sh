#!/bin/sh
# Templates over a class hierarchy: a pure virtual method of the root never overridden.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 g++ -std=c++17 -fsyntax-only deep.cpp 2>&1 | grep -qF -- "error: invalid new-expression of abstract class type"
