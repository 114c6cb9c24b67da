#!/bin/sh
# The pipeline checker finds the deploy stage needing an artifact nothing produces.
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 python3 -S "$TEXT_BENCH/support/check_pipeline.py" pipeline.yaml 2>&1 |
    grep -q "LookupError: stage deploy needs 'bundle-manifest', produced by no earlier stage"
