#!/bin/sh
# A csmith program (seed 3): compiles without the warnings of support/csmith_test.sh, and gcc
# still warns "[-Woverflow]".
. "$TEXT_BENCH/support/prelude.sh"
CONSTRUCT='[-Woverflow]'
. "$TEXT_BENCH/support/csmith_test.sh"
