#!/bin/sh
# A csmith program (seed 1): compiles without the warnings of support/csmith_test.sh, and gcc
# still warns "comparison of distinct pointer types lacks a cast".
. "$TEXT_BENCH/support/prelude.sh"
CONSTRUCT='comparison of distinct pointer types lacks a cast'
. "$TEXT_BENCH/support/csmith_test.sh"
