#!/usr/bin/env bash
# Times `gpuenv archs` against `cuobjdump --list-elf` and `cuobjdump --list-ptx` on the same large
# real CUDA library, in one hyperfine run, and records peak memory with /usr/bin/time. Writes
# bench/results/archs-<date>.md.
#
#   bench/archs.sh [FILE...]   # default: Debian's libcublasLt.so.11 (574 MB, nvidia-cuda-toolkit)
#
# gpuenv runs with `--gpu 8.6` (no machine probe) and without (doctor's GPU probe, as a user runs
# it). Needs hyperfine, /usr/bin/time, cuobjdump and a release build (built here). Exit codes are
# ignored: archs exits 1 when a GPU cannot run the file.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in hyperfine cuobjdump /usr/bin/time; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench/archs: $tool is needed" >&2; exit 2; }
done
files=("$@")
if [ "${#files[@]}" -eq 0 ]; then
    files=(/usr/lib/x86_64-linux-gnu/libcublasLt.so.11.11.3.6)
fi

cargo build --release -q -p gpuenv
gpuenv="${CARGO_TARGET_DIR:-$PWD/target}/release/gpuenv"
out="bench/results/archs-$(date -u +%Y-%m-%d).md"
# A second run on the same day keeps the first one's results.
[ -e "$out" ] && out="bench/results/archs-$(date -u +%Y-%m-%dT%H%M).md"

{
    echo "# gpuenv archs vs. cuobjdump"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(uname -srm), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
    echo "- gpuenv: $("$gpuenv" --version)"
    echo "- cuobjdump: $(cuobjdump --version | tail -1)"
} > "$out"

for file in "${files[@]}"; do
    [ -f "$file" ] || { echo "bench/archs: $file not found, skipped" >&2; continue; }
    size=$(stat -c %s "$file")
    entries=$("$gpuenv" archs "$file" --gpu 8.6 --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["fatbin"]["entries"] if d["fatbin"] else 0)')
    listed=$( (cuobjdump --list-elf "$file"; cuobjdump --list-ptx "$file") 2>/dev/null | grep -c '^\(ELF\|PTX\) file' || true)
    names=("gpuenv archs --gpu 8.6" "gpuenv archs (probes this machine's GPUs)" "cuobjdump --list-elf" "cuobjdump --list-ptx")
    cmds=("$gpuenv archs '$file' --gpu 8.6" "GPUENV_NO_NVML=1 $gpuenv archs '$file'" "cuobjdump --list-elf '$file'" "cuobjdump --list-ptx '$file'")
    args=()
    for i in "${!cmds[@]}"; do
        args+=(--command-name "${names[$i]}" "${cmds[$i]} >/dev/null 2>&1")
    done
    hyperfine --warmup 1 --min-runs 5 -i --export-markdown /tmp/gpuenv-archs-bench.md "${args[@]}" >&2
    {
        echo
        echo "## $file ($size bytes; gpuenv: $entries entries, cuobjdump: $listed)"
        echo
        echo "### Wall time (hyperfine, warm cache)"
        echo
        cat /tmp/gpuenv-archs-bench.md
        echo
        echo "### Peak memory (/usr/bin/time -v, one run)"
        echo
        echo "| command | max RSS (KiB) |"
        echo "|:---|---:|"
        for i in "${!cmds[@]}"; do
            rss=$( { /usr/bin/time -v sh -c "${cmds[$i]} >/dev/null 2>&1" ; } 2>&1 | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}' || true)
            echo "| ${names[$i]} | ${rss:-?} |"
        done
    } >> "$out"
done
echo "bench/archs: wrote $out" >&2
cat "$out"
