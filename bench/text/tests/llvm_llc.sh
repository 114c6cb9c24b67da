#!/bin/sh
# llc (LLVM 19) fails to assemble an inline-asm mnemonic.
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 /usr/lib/llvm-19/bin/llc -filetype=obj -o /dev/null kernel.ll 2>&1 |
    grep -q "invalid instruction mnemonic 'lfence_all'"
