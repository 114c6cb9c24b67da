#!/usr/bin/env bash
# Per-candidate overhead of `--backend runner` (fork server) vs `--backend subproc` (fresh
# interpreter per candidate), on a trivial program and on one importing a slow module with
# --preload. Prints ms per candidate and ratios measured in one run. Not part of the test suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo run --quiet --release -p minrepro-pyrunner --example overhead -- "${1:-200}"

# A whole reduction with each backend (the README example), wall time from one run each.
cargo build --quiet --release
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for backend in runner subproc; do
  start=$(date +%s.%N)
  ./target/release/minrepro python examples/python/shape_mismatch.py \
    --err-msg "T.gemm K shape check failed" -o "$out/$backend.py" --backend "$backend" -q >/dev/null
  end=$(date +%s.%N)
  echo "reduction of examples/python/shape_mismatch.py with --backend $backend: $(python3 -c "print(round($end - $start, 2))") s"
done
cmp -s "$out/runner.py" "$out/subproc.py" && echo "both backends produced identical output"
