#!/bin/sh
# rustc: E0502, a field borrowed mutably while an immutable borrow of it is still used.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 rustc --edition 2021 --crate-type lib --emit=metadata -o lib.rmeta queue.rs 2>&1 |
    grep -q "error\[E0502\]: cannot borrow"
