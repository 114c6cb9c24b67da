# Sourced first by every bench/text test: counts the run (one line appended to
# $BENCH_COUNTER, when set) and makes tool messages plain ASCII and stable.
if [ -n "${BENCH_COUNTER:-}" ]; then
    echo run >> "$BENCH_COUNTER"
fi
LC_ALL=C
LANG=C
export LC_ALL LANG
