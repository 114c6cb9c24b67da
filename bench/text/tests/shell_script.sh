#!/bin/sh
# The rotation plan is over budget by a total (634) the script does not spell out.
. "$TEXT_BENCH/support/prelude.sh"
grep -q 634 rotate.sh && exit 1
timeout 5 bash rotate.sh 2>&1 >/dev/null | grep -q "over budget: total=634"
