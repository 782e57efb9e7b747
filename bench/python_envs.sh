#!/usr/bin/env bash
# Scale benchmark for L5: a machine root with 30 conda environments of 400 distributions each
# (real dist-info layout: METADATA with Requires-Dist, INSTALLER, RECORD), generated under /tmp.
# Times `gpuenv doctor` (environments listed, the default), `gpuenv doctor --all-envs` (every
# distribution's metadata and RECORD read, every check run) and, side by side, what people run
# instead: `pip list --path` once per environment. Writes bench/results/python-envs-<date>.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "bench: hyperfine is needed (apt install hyperfine)" >&2; exit 2; }
cargo build --release -q -p gpuenv
gpuenv="$PWD/target/release/gpuenv"
root=${GPUENV_BENCH_ROOT:-/tmp/gpuenv-bench-envs}
envs=${GPUENV_BENCH_ENVS:-30}
dists=${GPUENV_BENCH_DISTS:-400}

python3 - "$root" "$envs" "$dists" <<'PY'
import os, sys, json, hashlib
root, n_envs, n_dists = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
marker = os.path.join(root, f".made-{n_envs}x{n_dists}")
if os.path.exists(marker):
    sys.exit(0)
base = os.path.join(root, "home/user/miniconda3")
os.makedirs(os.path.join(base, "conda-meta"), exist_ok=True)
os.makedirs(os.path.join(base, "condabin"), exist_ok=True)
for e in range(n_envs):
    prefix = os.path.join(base, "envs", f"env{e:02d}")
    sp = os.path.join(prefix, "lib/python3.11/site-packages")
    os.makedirs(sp, exist_ok=True)
    os.makedirs(os.path.join(prefix, "bin"), exist_ok=True)
    open(os.path.join(prefix, "bin/python3"), "w").write("")
    meta = os.path.join(prefix, "conda-meta")
    os.makedirs(meta, exist_ok=True)
    json.dump({"name": "python", "version": "3.11.5", "build": "h0_0", "files": []}, open(os.path.join(meta, "python-3.11.5-h0_0.json"), "w"))
    for d in range(n_dists):
        name = f"package_{d:03d}"
        version = f"1.{d % 10}.{e}"
        di = os.path.join(sp, f"{name}-{version}.dist-info")
        os.makedirs(di, exist_ok=True)
        reqs = "".join(f"Requires-Dist: package-{(d + k) % n_dists:03d}>=1.0\n" for k in (1, 2, 3))
        open(os.path.join(di, "METADATA"), "w").write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{reqs}\nLong description.\n" + "x" * 2000)
        open(os.path.join(di, "INSTALLER"), "w").write("pip\n")
        pkg = os.path.join(sp, name)
        os.makedirs(pkg, exist_ok=True)
        record = []
        for f in ("__init__.py", "core.py", "util.py", "data.json"):
            body = f"{name}{f}".encode()
            open(os.path.join(pkg, f), "wb").write(body)
            record.append(f"{name}/{f},sha256={hashlib.sha256(body).hexdigest()[:43]},{len(body)}")
        record.append(f"{name}-{version}.dist-info/METADATA,,")
        open(os.path.join(di, "RECORD"), "w").write("\n".join(record) + "\n")
open(marker, "w").write("")
PY

out="bench/results/python-envs-$(date -u +%Y-%m-%d).md"
# A second run on the same day keeps the first one's results.
[ -e "$out" ] && out="bench/results/python-envs-$(date -u +%Y-%m-%dT%H%M).md"
sp_list=$(for e in $(seq -f '%02g' 0 $((envs - 1))); do printf '%s ' "$root/home/user/miniconda3/envs/env$e/lib/python3.11/site-packages"; done)
pip_loop="for sp in $sp_list; do python3 -m pip list --disable-pip-version-check --path \$sp >/dev/null; done"
{
    echo "# L5 scale: $envs environments x $dists distributions"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(uname -srm), $(nproc) CPUs"
    echo "- gpuenv: $("$gpuenv" --version); pip: $(python3 -m pip --version | cut -d' ' -f1-2)"
    echo
} > "$out"
hyperfine --warmup 2 --min-runs 10 -i --export-markdown /tmp/gpuenv-bench-py.md \
    --command-name "gpuenv doctor (all $envs environments listed)" "HOME=/home/user $gpuenv --root $root doctor >/dev/null" \
    --command-name "gpuenv doctor --all-envs (every distribution read and checked)" "HOME=/home/user $gpuenv --root $root doctor --all-envs >/dev/null" \
    --command-name "pip list --path, once per environment" "$pip_loop" >&2
cat /tmp/gpuenv-bench-py.md >> "$out"
echo "bench: wrote $out" >&2
cat "$out"
