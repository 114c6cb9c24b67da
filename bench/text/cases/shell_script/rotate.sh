#!/bin/bash
# Log rotation planner: decides which log generations to keep, compress or drop, and
# checks the plan's totals before acting. Prints the plan only; touches no file.
set -u

KEEP_DAYS=7
COMPRESS_AFTER=2
declare -a SIZES=(120 340 95 410 230 60 75 500 310 44)
declare -a AGES=(0 1 2 3 4 5 6 8 9 12)

log() {
    printf '[plan] %s\n' "$*"
}

# Size after compression: text logs shrink to about a fifth.
compressed_size() {
    local size=$1
    echo $(( (size + 4) / 5 ))
}

decide() {
    local age=$1
    if (( age > KEEP_DAYS )); then
        echo drop
    elif (( age >= COMPRESS_AFTER )); then
        echo compress
    else
        echo keep
    fi
}

plan() {
    local i action size total=0 dropped=0
    for i in "${!SIZES[@]}"; do
        action=$(decide "${AGES[$i]}")
        size=${SIZES[$i]}
        case "$action" in
            keep)
                total=$(( total + size ))
                log "keep generation $i ($size kB)"
                ;;
            compress)
                size=$(compressed_size "$size")
                total=$(( total + size ))
                log "compress generation $i to $size kB"
                ;;
            drop)
                dropped=$(( dropped + size ))
                log "drop generation $i"
                ;;
        esac
    done
    echo "$total $dropped"
}

check() {
    local total=$1 dropped=$2 budget=$3
    if (( total > budget )); then
        echo "over budget: total=$total budget=$budget" >&2
        return 3
    fi
    log "within budget ($total of $budget kB, $dropped kB freed)"
}

main() {
    local result
    result=$(plan | tail -n 1)
    log "plan ready"
    # shellcheck disable=SC2086
    check $result 600
}

main "$@"
