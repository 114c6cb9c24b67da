#!/bin/sh
# opt (LLVM 19) rejects the module: a use before its definition.
. "$TEXT_BENCH/support/prelude.sh"
timeout 10 /usr/lib/llvm-19/bin/opt -passes=instcombine -disable-output kernel.ll 2>&1 |
    grep -q "Instruction does not dominate all uses!"
