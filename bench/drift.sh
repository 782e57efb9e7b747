#!/usr/bin/env bash
# Issue 7's speed targets: `gpuenv diff` of two snapshots of a machine with 30 Python environments
# (250 distributions each) under 50 ms, and `gpuenv history` over a year of daily records under
# 100 ms. The example `drift_bench` (crates/gpuenv-history/examples) generates the two snapshots
# and the year of records and times the library calls; then the real binary is timed on the same
# files (process start, reading, parsing, checks on both sides, rendering).
#
#   bench/drift.sh
#
# Needs a release build (built here); hyperfine when installed, else `time`.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo run --release -q -p gpuenv-history --example drift_bench "$work"
cargo build --release -q -p gpuenv
gpuenv="$target/release/gpuenv"
a="$work/bench-a.snapshot.json" b="$work/bench-b.snapshot.json" db="$work/bench-history.sqlite"
if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N --warmup 2 -i "$gpuenv diff $a $b --format json" "$gpuenv history --db $db --format json"
else
    time "$gpuenv" diff "$a" "$b" --format json >/dev/null || true
    time "$gpuenv" history --db "$db" --format json >/dev/null
fi
