#!/usr/bin/env bash
# Per-candidate overhead of `--backend runner` (fork server) vs `--backend subproc` (fresh
# interpreter per candidate), on a trivial program and on one importing a slow module with
# --preload. Prints ms per candidate and ratios measured in one run. Not part of the test suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo run --quiet --release -p minrepro-pyrunner --example overhead -- "${1:-200}"
