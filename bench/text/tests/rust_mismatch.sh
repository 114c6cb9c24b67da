#!/bin/sh
# rustc: E0308 mismatched types (a `u32` where a `String` is expected).
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 rustc --edition 2021 --crate-type lib --emit=metadata -o lib.rmeta inventory.rs 2>&1 |
    grep -q "error\[E0308\]: mismatched types"
