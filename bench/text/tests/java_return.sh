#!/bin/sh
# javac: missing return statement at the end of a method.
. "$TEXT_BENCH/support/prelude.sh"
timeout 30 javac -d classes Parser.java 2>&1 | grep -q "error: missing return statement"
