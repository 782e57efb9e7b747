#!/usr/bin/env bash
# Times `gpuenv doctor` on this machine's real root side by side with what people run instead,
# in one hyperfine run, and records peak memory with /usr/bin/time. Writes bench/results/<date>.md.
#
#   bench/run.sh            # needs hyperfine (installed with apt when root) and a release build
#
# The peers: `nvidia-smi`, `nvcc --version`, `ldconfig -p | grep cudnn`, `find /usr -name 'libcudnn*'`,
# and all four in a row — the manual check gpuenv replaces. Commands that are not installed are left
# out (and said so). Exit codes are ignored: on a machine without a GPU nvidia-smi exits 9 and doctor 1.
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
if [ ! -x /usr/bin/time ]; then
    [ "$(id -u)" -eq 0 ] && apt-get install -y -qq time >/dev/null
fi

cargo build --release -q -p gpuenv
gpuenv="$PWD/target/release/gpuenv"
out="bench/results/$(date -u +%Y-%m-%d)-$(hostname -s 2>/dev/null || echo host).md"
# A second run on the same day keeps the first one's results.
[ -e "$out" ] && out="bench/results/$(date -u +%Y-%m-%dT%H%M)-$(hostname -s 2>/dev/null || echo host).md"

cmds=("$gpuenv doctor" "GPUENV_NO_NVML=1 $gpuenv doctor")
names=("gpuenv doctor" "gpuenv doctor (files only, GPUENV_NO_NVML=1)")
manual=()
if command -v nvidia-smi >/dev/null 2>&1; then cmds+=("nvidia-smi"); names+=("nvidia-smi"); manual+=("nvidia-smi"); else echo "bench: nvidia-smi not installed" >&2; fi
if command -v nvcc >/dev/null 2>&1; then cmds+=("nvcc --version"); names+=("nvcc --version"); manual+=("nvcc --version"); else echo "bench: nvcc not installed" >&2; fi
cmds+=("ldconfig -p | grep cudnn" "find /usr -name 'libcudnn*'")
names+=("ldconfig -p | grep cudnn" "find /usr -name 'libcudnn*'")
manual+=("ldconfig -p | grep cudnn" "find /usr -name 'libcudnn*'")
joined=$(printf '%s; ' "${manual[@]}")
cmds+=("$joined")
names+=("all of the manual checks in a row")

args=()
for i in "${!cmds[@]}"; do
    args+=(--command-name "${names[$i]}" "${cmds[$i]} >/dev/null 2>&1")
done

{
    echo "# gpuenv doctor vs. the manual checks"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(uname -srm), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
    echo "- gpuenv: $("$gpuenv" --version)"
    echo "- driver/toolkit here: $(dpkg-query -W -f='${Package} ${Version}\n' libcuda1 nvidia-cuda-toolkit 2>/dev/null | tr '\n' ';')"
    echo
    echo "## Wall time (hyperfine, warm cache)"
    echo
} > "$out"
# hyperfine subtracts the cost of spawning the shell it runs each command in.
hyperfine --warmup 3 --min-runs 20 -i --export-markdown /tmp/gpuenv-bench.md "${args[@]}" >&2
cat /tmp/gpuenv-bench.md >> "$out"

{
    echo
    echo "## Peak memory (/usr/bin/time -v, one run)"
    echo
    echo "| command | max RSS (KiB) |"
    echo "|:---|---:|"
    for i in "${!cmds[@]}"; do
        rss=$( { /usr/bin/time -v sh -c "${cmds[$i]} >/dev/null 2>&1" ; } 2>&1 | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}' || true)
        echo "| ${names[$i]} | ${rss:-?} |"
    done
} >> "$out"
echo "bench: wrote $out" >&2
cat "$out"
