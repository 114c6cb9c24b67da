#!/bin/sh
# The services checker finds billing's effective timeout (3600 ms) below its tier's minimum.
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 python3 -S "$TEXT_BENCH/support/check_services.py" services.json 2>&1 |
    grep -q "ValueError: service billing: timeout 3600 ms below tier critical minimum"
