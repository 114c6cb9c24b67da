#!/bin/sh
# javac: incompatible types, a String assigned to an int.
. "$TEXT_BENCH/support/prelude.sh"
timeout 30 javac -d classes Library.java 2>&1 |
    grep -q "error: incompatible types: String cannot be converted to int"
