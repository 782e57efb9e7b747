#!/usr/bin/env bash
# Times `gpuenv fleet` over N synthetic nodes' reports (default 10 000) and records peak memory, to
# check the fleet view's budget: 10 000 reports merged in under 1 s, memory proportional to the
# distinct values rather than to the reports. Writes bench/results/fleet-<date>.md.
#
#   bench/fleet.sh [N]        # builds the release binary (CARGO_TARGET_DIR is honoured; GPUENV=path
#                             # uses that binary instead); needs python3 and hyperfine
#
# The reports are this machine's real `gpuenv doctor --format json` (the largest realistic input:
# every environment, distribution list and probe detail) and a small fake machine's, copied N times
# with distinct host names; every 20th node gets another driver, every 50th an error finding.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
target=${CARGO_TARGET_DIR:-target}
if [ -z "${GPUENV:-}" ]; then
    cargo build --release -q -p gpuenv
fi
gpuenv=${GPUENV:-$target/release/gpuenv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="bench/results/fleet-$(date -u +%Y-%m-%d).md"
# A second run on the same day keeps the first one's results.
[ -e "$out" ] && out="bench/results/fleet-$(date -u +%Y-%m-%dT%H%M).md"

"$gpuenv" doctor --format json > "$work/base-real.json" || true
cat > "$work/small.json" <<'JSON'
{"schema":"gpuenv.report/1","gpuenv_version":"0.1.0","timestamp":1,"duration_ms":1,"summary":[],"counts":{"error":0,"warning":0,"info":0},"findings":[],
 "facts":{"root":"/","live":true,
 "os":{"hostname":{"value":"HOST","source":{"kind":"file","detail":"/proc/sys/kernel/hostname"}},"kernel_release":{"value":"6.1.0-18-amd64","source":{"kind":"file","detail":"/proc/sys/kernel/osrelease"}},"distribution":{"value":{"id":"debian","version_id":"12","pretty_name":"Debian GNU/Linux 12"},"source":{"kind":"file","detail":"/etc/os-release"}}},
 "driver":{"kernel_module":{"version":{"value":"550.54.14","source":{"kind":"file","detail":"/proc/driver/nvidia/version"}},"flavor":"proprietary"},"userspace_version":{"value":"550.54.14","source":{"kind":"file","detail":"libcuda.so.550.54.14"}}},
 "gpus":{"devices":[{"pci_address":"0000:01:00.0","device_id":8704,"name":{"value":"NVIDIA A100-SXM4-80GB","source":{"kind":"kb","detail":"gpus.tsv"}}},{"pci_address":"0000:41:00.0","device_id":8704,"name":{"value":"NVIDIA A100-SXM4-80GB","source":{"kind":"kb","detail":"gpus.tsv"}}}]},
 "cuda":{"toolkits":[{"root":"/usr/local/cuda-12.4","version":{"value":"12.4.1","source":{"kind":"file","detail":"version.json"}}}]},
 "libraries":{"cudnn":[{"dir":"/usr/lib/x86_64-linux-gnu","major":9,"version":{"value":"9.1.0","source":{"kind":"file","detail":"cudnn_version.h"}},"cuda_major":{"value":12,"source":{"kind":"elf","detail":"x"}}}]},
 "python":{"environments":[{"name":"ml","prefix":"/opt/ml","frameworks":{"torch":{"version":{"value":"2.3.0+cu121","source":{"kind":"file","detail":"torch/version.py"}},"cuda":"12.1"},"packages":{"torchvision":"0.18.0"}}}]}}}
JSON

python3 - "$work" "$n" <<'PY'
import json, os, sys
work, n = sys.argv[1], int(sys.argv[2])
for kind in ("real", "small"):
    src = "base-real.json" if kind == "real" else "small.json"
    base = json.load(open(os.path.join(work, src)))
    driver = base["facts"]["driver"].get("userspace_version")
    usual = driver["value"] if driver else None
    d = os.path.join(work, kind)
    os.makedirs(d)
    with open(os.path.join(work, kind + ".jsonl"), "w") as lines:
        for i in range(n):
            base["facts"]["os"]["hostname"] = {"value": f"node{i:05d}", "source": {"kind": "file", "detail": "/proc/sys/kernel/hostname"}}
            if driver:
                driver["value"] = "535.161.07" if i % 20 == 7 else usual
            base["findings"] = [{"id": "driver-too-old-for-cuda", "severity": "error", "layer": "driver", "title": "t", "evidence": [], "fix": ""}] if i % 50 == 3 else []
            text = json.dumps(base)
            with open(os.path.join(d, f"node{i:05d}.json"), "w") as f:
                f.write(text)
            lines.write(text + "\n")
PY
mkdir "$work/real1k"
cp "$work"/real/node00[0-9]??.json "$work/real1k/"

measure() { # name, command...: best wall time of 5 warm runs (hyperfine), peak RSS (/usr/bin/time)
    local name=$1; shift
    hyperfine -N -i --warmup 1 --runs 5 --export-json "$work/h.json" "$*" >/dev/null 2>&1 ||
        hyperfine -i --warmup 1 --runs 5 --export-json "$work/h.json" "$*" >/dev/null
    local t rss
    t=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.3f s (min %.3f)" % (r["mean"], r["min"]))' "$work/h.json")
    rss=$( (/usr/bin/time -f '%M' "$@" >/dev/null) 2>&1 | tail -1 || true)
    printf '| %s | %s | %s MiB |\n' "$name" "$t" "$((rss / 1024))"
}

{
    echo "# gpuenv fleet: $n reports ($(date -u +%Y-%m-%d), $(nproc) CPUs)"
    echo
    echo "Report sizes: this machine's real report $(wc -c < "$work/base-real.json") bytes, the small one $(wc -c < "$work/small.json") bytes;"
    echo "$(du -sh "$work/real" | cut -f1) and $(du -sh "$work/small" | cut -f1) of files. Files warm in the page cache."
    echo "Load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine slows every figure)."
    echo
    echo "| input | wall time (mean of 5) | peak RSS |"
    echo "| --- | --- | --- |"
    measure "$n small reports, directory" "$gpuenv" fleet --format json "$work/small"
    measure "$n real-size reports, directory" "$gpuenv" fleet --format json "$work/real"
    measure "$n real-size reports, JSON lines file" "$gpuenv" fleet --format json "$work/real.jsonl"
    measure "1 000 real-size reports, directory (memory comparison)" "$gpuenv" fleet --format json "$work/real1k"
    measure "$n real-size reports, HTML page" "$gpuenv" fleet --format html "$work/real"
} | tee "$out"
echo "bench: wrote $out" >&2
