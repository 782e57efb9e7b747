#!/usr/bin/env bash
# Times `gpuenv explain` on a generated 15 MB log (above the 10 MB target) (TensorFlow-style INFO lines, ANSI colours,
# a Python traceback and a cuDNN error at the end) with the full signature catalogue, from the
# text alone (`--no-probe`) and with this machine probed; and the same log with an error that no
# signature knows, so the word model (the last resort) runs too. Target: under 100 ms. Writes
# bench/results/explain-<date>.md.
#
#   bench/explain.sh
#
# Needs hyperfine and a release build (built here).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v hyperfine >/dev/null 2>&1 || { echo "bench/explain: hyperfine is needed" >&2; exit 2; }

cargo build --release -q -p gpuenv
gpuenv="${CARGO_TARGET_DIR:-$PWD/target}/release/gpuenv"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/train.log"

# ~15 MB: 110 000 log lines, then the error.
awk 'BEGIN {
    for (i = 0; i < 110000; i++) {
        printf "2024-05-01 12:%02d:%02d.%06d: I tensorflow/core/common_runtime/step.cc:%d] \033[32mstep %d\033[0m loss=%.4f lr=0.0003 throughput=%d img/s\n", (i/60)%60, i%60, i, i%900, i, 1/(i+1), 800+i%50
    }
}' > "$log"
cat >> "$log" <<'TRACE'
Traceback (most recent call last):
  File "train.py", line 88, in <module>
    out = model(x)
RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED
E0000 00:00:1712345678.123 12345 cuda_dnn.cc:535] Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.
TRACE
# The same lines ending in an error no signature or hint knows: the word model reads the end.
unknown="$work/unknown.log"
head -n 110000 "$log" > "$unknown"
cat >> "$unknown" <<'TRACE'
When I start multi gpu training with python -m torch.distributed.launch --nproc_per_node=2 train.py
the program hangs and fails with a timeout error
TRACE
size=$(wc -c < "$log")
out="bench/results/explain-$(date -u +%Y-%m-%d).md"
# A second run on the same day keeps the first one's results.
[ -e "$out" ] && out="bench/results/explain-$(date -u +%Y-%m-%dT%H%M).md"
{
    echo "# gpuenv explain on a generated log"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(uname -srm), $(nproc) CPUs"
    echo "- log: $size bytes, $(wc -l < "$log") lines"
    echo
} > "$out"
hyperfine --warmup 3 --runs 20 --export-markdown "$work/table.md" \
    -n "explain --no-probe" "$gpuenv explain --no-probe $log" \
    -n "explain (probe this machine)" "$gpuenv explain $log" \
    -n "explain --no-probe, no known message (word model)" "$gpuenv explain --no-probe $unknown"
cat "$work/table.md" >> "$out"
echo "wrote $out"
