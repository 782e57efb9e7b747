#!/usr/bin/env bash
# Times `gpuenv ldd` against `ldd` and, when installed, libtree and lddtree (Debian packages
# `libtree` and `pax-utils`) on the same files, in one hyperfine run per file. Writes
# bench/results/ldd-<date>.md with the tables and the ratios to `ldd`.
#
#   bench/ldd.sh [FILE...]   # default: Debian's libcublasLt.so.11 and nvidia-smi's real binary
#
# Needs hyperfine (installed with apt when root) and builds gpuenv in release mode. Exit codes are
# ignored. `gpuenv ldd` follows the knowledge base's dlopen edges too (the others cannot), so it
# does a little more work than its peers.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v hyperfine >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get install -y -qq hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }
    else
        echo "bench: hyperfine is needed (sudo apt install hyperfine)" >&2
        exit 2
    fi
fi
if [ "$(id -u)" -eq 0 ]; then
    command -v libtree >/dev/null 2>&1 || apt-get install -y -qq libtree >/dev/null 2>&1 || true
    command -v lddtree >/dev/null 2>&1 || apt-get install -y -qq pax-utils >/dev/null 2>&1 || true
fi

target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release -q -p gpuenv
gpuenv="$target/release/gpuenv"

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    for f in /usr/lib/x86_64-linux-gnu/libcublasLt.so.11 "$(readlink -f /usr/bin/nvidia-smi 2>/dev/null || true)" \
             /usr/lib/x86_64-linux-gnu/libcudart.so.11.0 /usr/bin/python3; do
        [ -n "$f" ] && [ -f "$f" ] && files+=("$f")
    done
fi
out="bench/results/ldd-$(date -u +%Y-%m-%d).md"
# A second run on the same day keeps the first one's results.
[ -e "$out" ] && out="bench/results/ldd-$(date -u +%Y-%m-%dT%H%M).md"
{
    echo "# gpuenv ldd vs. ldd, libtree, lddtree"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(uname -srm), $(nproc) CPUs"
    echo "- gpuenv: $("$gpuenv" --version)"
    echo "- peers: $(ldd --version | head -1); libtree $(libtree --version 2>/dev/null || echo absent); lddtree $(dpkg-query -W -f='${Version}' pax-utils 2>/dev/null || echo absent)"
    echo
} > "$out"
for f in "${files[@]}"; do
    args=(--command-name "gpuenv ldd" "$gpuenv ldd $f >/dev/null 2>&1"
          --command-name "ldd" "ldd $f >/dev/null 2>&1")
    command -v libtree >/dev/null 2>&1 && args+=(--command-name "libtree" "libtree $f >/dev/null 2>&1")
    command -v lddtree >/dev/null 2>&1 && args+=(--command-name "lddtree" "lddtree $f >/dev/null 2>&1")
    hyperfine --warmup 3 --min-runs 30 -i -N --export-json /tmp/gpuenv-ldd.json --export-markdown /tmp/gpuenv-ldd.md "${args[@]}" >&2 \
        || hyperfine --warmup 3 --min-runs 30 -i --export-json /tmp/gpuenv-ldd.json --export-markdown /tmp/gpuenv-ldd.md "${args[@]}" >&2
    {
        echo "## $f ($(stat -L -c %s "$f") bytes)"
        echo
        cat /tmp/gpuenv-ldd.md
        echo
        python3 - <<'PY'
import json
r = {x["command"]: x["median"] for x in json.load(open("/tmp/gpuenv-ldd.json"))["results"]}
g = r["gpuenv ldd"]
for name, t in r.items():
    if name != "gpuenv ldd":
        print(f"- {name} median / gpuenv ldd median = {t / g:.1f}x")
PY
        echo
    } >> "$out"
done
echo "bench: wrote $out" >&2
