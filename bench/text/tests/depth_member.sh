#!/bin/sh
# Templates over a class hierarchy: the chain's last walker uses a member no class has.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 g++ -std=c++17 -fsyntax-only deep.cpp 2>&1 | grep -qF -- "has no member named 'finish'"
