#!/bin/sh
# Templates over a class hierarchy: a member reached through both sides of a diamond.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 g++ -std=c++17 -fsyntax-only deep.cpp 2>&1 | grep -qF -- "error: request for member 'id' is ambiguous"
