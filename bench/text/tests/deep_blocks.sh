#!/bin/sh
# clang gives up on the nested blocks (bracket nesting beyond its default -fbracket-depth of
# 256) while gcc compiles the file without a warning.
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 gcc -fsyntax-only -Werror blocks.c >/dev/null 2>&1 || exit 1
timeout 10 clang -fsyntax-only blocks.c 2>&1 |
    grep -q "bracket nesting level exceeded maximum of 256"
