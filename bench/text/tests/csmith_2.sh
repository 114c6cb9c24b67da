#!/bin/sh
# A csmith program (seed 2): compiles without the warnings of support/csmith_test.sh, and gcc
# still warns "[-Wbool-compare]".
. "$TEXT_BENCH/support/prelude.sh"
CONSTRUCT='[-Wbool-compare]'
. "$TEXT_BENCH/support/csmith_test.sh"
