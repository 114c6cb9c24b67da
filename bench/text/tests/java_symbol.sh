#!/bin/sh
# javac: cannot find symbol, a method the interface does not declare.
. "$TEXT_BENCH/support/prelude.sh"
out=$(timeout 30 javac -d classes Geometry.java 2>&1)
echo "$out" | grep -q "error: cannot find symbol" &&
    echo "$out" | grep -q "symbol: *method perimeter()"
