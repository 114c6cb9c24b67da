#!/bin/sh
# rustc: E0277, `Label` does not implement the `Shape` trait a generic function needs.
. "$TEXT_BENCH/support/prelude.sh"
timeout 20 rustc --edition 2021 --crate-type lib --emit=metadata -o lib.rmeta shapes.rs 2>&1 |
    grep -q "error\[E0277\]: the trait bound \`Label: Shape\` is not satisfied"
