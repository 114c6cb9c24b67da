#!/bin/sh
# The interestingness test of examples/file/ring.c: exit 0 when gcc still stops with the
# missing-member error this example is about, any other status for every other outcome (a file
# that no longer compiles for another reason does not count: grep looks for that error only).
LC_ALL=C gcc -fsyntax-only ring.c 2>&1 | grep -q "has no member named .weight."
