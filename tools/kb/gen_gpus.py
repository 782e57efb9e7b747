#!/usr/bin/env python3
"""Regenerate crates/gpuenv-kb/data/gpus.tsv: NVIDIA PCI device id -> chip, compute capability, name.

Python 3 standard library only. Deterministic: the same three inputs give byte-identical output
(no timestamps; rows sorted by device id; every choice below is rule-based).

Inputs
------
1. supported-gpus.json (or .json.gz) - the NVIDIA driver's own list of every PCI device id it knows,
   with product names and, for dropped GPUs, the last legacy branch. The copy used for the checked-in
   table comes from Debian bookworm's `nvidia-driver` package, 535.309.01-0+deb12u1
   (bookworm-security, non-free), file usr/share/doc/nvidia-driver/supported-gpus.json.gz.
   To obtain it (needs `contrib non-free` in the apt sources; nothing gets installed):

       cd "$(mktemp -d)" && apt-get download nvidia-driver && dpkg-deb -x nvidia-driver_*.deb x
       # -> x/usr/share/doc/nvidia-driver/supported-gpus.json.gz

   Any NVIDIA Linux driver ships the same file (NVIDIA-Linux-x86_64-<ver>.run, extracted with
   --extract-only, has supported-gpus/supported-gpus.json); a newer driver knows newer ids. Give the
   origin with --supported-gpus-origin when it is not the package above.

2. pci.ids - the PCI ID Repository's list (https://pci-ids.ucw.cz/). Debian's `pci.ids` package
   (0.0~2023.04.11) predates Blackwell, so the checked-in table uses pci.ids Version 2026.08.22 from
   https://github.com/pciutils/pciids (file pci.ids, commit c1c12547d626ebf05fd0223144ad87fab5e95d06):

       git clone https://github.com/pciutils/pciids && git -C pciids checkout c1c12547d626
       # or: curl -LO https://pci-ids.ucw.cz/v2.2/pci.ids   (newest snapshot)

   The version and date are read from the file's own header. Give the origin with --pci-ids-origin
   when it differs from the commit above.

3. crates/gpuenv-kb/data/gpu_chips.tsv - chip codename -> compute capability, with its sources
   (longest-prefix match on the chip token). Checked in; edit it, not gpus.tsv.

The two downloaded inputs are large and are not committed.

Usage (from the repository root):

    python3 tools/kb/gen_gpus.py --supported-gpus /tmp/x/usr/share/doc/nvidia-driver/supported-gpus.json.gz \\
        --pci-ids /tmp/pci.ids [--chips crates/gpuenv-kb/data/gpu_chips.tsv] \\
        [--out crates/gpuenv-kb/data/gpus.tsv]

Rules
-----
Rows: every device id in supported-gpus.json, plus every pci.ids device of vendor 10de whose chip
token is Kepler or newer (GK, GM, GP, GV, TU, GA, AD, GH, GB, GR followed by a digit) and whose name
is not a non-GPU function (HD audio, USB, UCSI, bridges, NVSwitch, PCIe hosts/root ports, ...).
  chip               first word of the pci.ids device name when it looks like a chip codename
                     (e.g. 'GA102GL'), else empty.
  compute_capability from gpu_chips.tsv by longest prefix of the chip; empty if none or unconfirmed.
  name               supported-gpus.json: the entry without subsystem ids; if there is none, the name
                     shared by all subsystem entries, or held by more than half of them; otherwise the
                     bracketed pci.ids name (failing that, the JSON names joined by ' / ', most frequent
                     first). Devices not in the JSON: the bracketed pci.ids name (the whole pci.ids
                     name when it has no brackets).
  legacy_branch      supported-gpus.json 'legacybranch' (e.g. 470.xx), else empty.
  sources            DEBIAN-SUPPORTED-GPUS-535 (row is in the JSON), PCI-IDS (row is in pci.ids),
                     CC-CHIP (compute capability filled from gpu_chips.tsv).
"""

import argparse
import collections
import gzip
import json
import os
import re
import sys
import textwrap

HEADER = "device_id\tchip\tcompute_capability\tname\tlegacy_branch\tsources"
CHIPS_HEADER = "chip_prefix\tcompute_capability\tarchitecture\tsources\tnote"

DEFAULT_SG_ORIGIN = (
    "Debian bookworm package nvidia-driver 535.309.01-0+deb12u1 (bookworm-security/non-free, amd64), "
    "file usr/share/doc/nvidia-driver/supported-gpus.json.gz"
)
DEFAULT_PCI_ORIGIN = (
    "https://github.com/pciutils/pciids file pci.ids at commit c1c12547d626ebf05fd0223144ad87fab5e95d06"
)

# Chip codename: letters then a digit, alphanumerics; pci.ids also writes 'G70/G71' and
# 'MCP72XE/MCP72P/...' for parts shared by several chips.
CHIP_RE = re.compile(r"^[A-Z][A-Za-z]*[0-9][A-Za-z0-9]*(?:/[A-Z][A-Za-z0-9]*)*$")
KEPLER_PLUS_RE = re.compile(r"^(?:GK|GM|GP|GV|TU|GA|AD|GH|GB|GR)[0-9]")
NOT_A_GPU_RE = re.compile(
    r"audio|usb|ucsi|bridge|smbus|\blpc\b|memory controller|nvswitch|pcie host|pci express|"
    r"root port|root complex|endpoint|sata|ethernet|fpga|tegra on x86",
    re.IGNORECASE,
)
DEVICE_LINE_RE = re.compile(r"^\t([0-9a-f]{4})\s+(.+?)\s*$")


def read_supported_gpus(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    by_id = collections.OrderedDict()
    for entry in data["chips"]:
        dev = int(entry["devid"], 16)
        by_id.setdefault(dev, []).append(entry)
    result = {}
    for dev, entries in by_id.items():
        generic = [e for e in entries if "subdevid" not in e and "subvendorid" not in e]
        names = [e["name"].strip() for e in (generic or entries)]
        if generic:
            name = names[0]
        else:
            counts = collections.Counter(names)
            # most frequent first; ties keep file order (Counter.most_common is stable on insertion order)
            top, top_n = counts.most_common(1)[0]
            name = top if (len(counts) == 1 or top_n * 2 > len(names)) else None
        branches = sorted({e.get("legacybranch") for e in entries if e.get("legacybranch")})
        if len(branches) > 1:
            raise SystemExit(f"device {dev:04x}: several legacy branches {branches}")
        by_freq = [n for n, _ in collections.Counter(names).most_common()]
        result[dev] = {"name": name, "names": by_freq, "legacy": branches[0] if branches else ""}
    return result


def read_pci_ids(path):
    """Returns ({device_id: name}, version, date) for vendor 10de."""
    devices = {}
    version = date = ""
    in_nvidia = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("#"):
                m = re.match(r"#\s*Version:\s*(\S+)", line)
                if m and not version:
                    version = m.group(1)
                m = re.match(r"#\s*Date:\s*(.+?)\s*$", line)
                if m and not date:
                    date = m.group(1)
                continue
            if not line.strip():
                continue
            if not line.startswith("\t"):
                # vendor line ('10de  NVIDIA Corporation') or device class section ('C 00 ...')
                in_nvidia = line.startswith("10de ")
                continue
            if not in_nvidia or line.startswith("\t\t"):
                continue
            m = DEVICE_LINE_RE.match(line)
            if m:
                devices[int(m.group(1), 16)] = m.group(2)
    if not devices:
        raise SystemExit(f"{path}: no vendor 10de devices found")
    return devices, version, date


def split_pci_name(full):
    """'GA102 [GeForce RTX 3090]' -> ('GA102', 'GeForce RTX 3090'); bracket part may be absent."""
    first = full.split()[0]
    chip = first if CHIP_RE.match(first) else ""
    bracket = ""
    i = full.find("[")
    j = full.rfind("]")
    if 0 <= i < j:
        bracket = full[i + 1 : j].strip()
    return chip, bracket


def read_chips(path):
    rows = []
    header_seen = False
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("#") or not line.strip():
                continue
            if not header_seen:
                if line != CHIPS_HEADER:
                    raise SystemExit(f"{path}:{n}: expected header {CHIPS_HEADER!r}")
                header_seen = True
                continue
            fields = line.split("\t")
            if len(fields) != 5:
                raise SystemExit(f"{path}:{n}: expected 5 fields, found {len(fields)}")
            prefix, cc = fields[0], fields[1]
            if cc and not re.match(r"^[0-9]+\.[0-9]$", cc):
                raise SystemExit(f"{path}:{n}: bad compute capability {cc!r}")
            if not fields[3]:
                raise SystemExit(f"{path}:{n}: row has no source")
            rows.append((prefix, cc))
    prefixes = [p for p, _ in rows]
    if len(set(prefixes)) != len(prefixes):
        raise SystemExit(f"{path}: duplicate chip_prefix")
    return rows


def cc_for_chip(chip, chip_rows):
    best = None
    for prefix, cc in chip_rows:
        if chip.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, cc)
    return best[1] if best else ""


def wrap(text, indent="      ", width=100):
    return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False)


def header_comment(sg_origin, pci_origin, pci_version, pci_date, stats):
    pci_ver = f"Version {pci_version}" + (f" (Date {pci_date})" if pci_date else "")
    lines = [
        "gpus.tsv - NVIDIA GPUs by PCI device id (vendor 10de implied).",
        "GENERATED by tools/kb/gen_gpus.py from supported-gpus.json, pci.ids and gpu_chips.tsv - do not",
        "edit by hand; fix the inputs or gpu_chips.tsv and regenerate (the script's docstring says how).",
        "",
        "Columns (tab-separated, UTF-8, LF; one row per device id, sorted by device_id):",
        "  device_id           4 lowercase hex digits, no 0x.",
        "  chip                chip codename, the first word of the pci.ids device name as pci.ids spells",
        "                      it (GL/GLM = professional, M/BM = mobile variants); empty if unknown.",
        "  compute_capability  CUDA compute capability from gpu_chips.tsv (longest-prefix match on chip);",
        "                      empty when the chip is unknown or no source confirms a value. Pre-Kepler",
        "                      chips are always empty.",
        "  name                product name: the driver's supported-gpus.json name (generic entry, else the",
        "                      name most subsystem entries agree on), else the bracketed pci.ids name.",
        "  legacy_branch       last driver branch for GPUs the 535 driver lists as legacy (supported-gpus.json",
        "                      'legacybranch', e.g. 470.xx). Empty = the 535 driver lists it as current, or",
        "                      the id is not in its list: newer GPUs, and some data-center parts the list",
        "                      omits (e.g. 1eb8 Tesla T4, 1bb3 Tesla P4) - absence is not proof of no support.",
        "  sources             semicolon-separated source ids defined below.",
        "",
        "Sources:",
        "  DEBIAN-SUPPORTED-GPUS-535  NVIDIA driver 535 supported-gpus.json (the driver's own list of",
        "      device ids, names and legacy branches):",
        *wrap(sg_origin + "."),
        "  PCI-IDS  The PCI ID Repository's pci.ids (https://pci-ids.ucw.cz/):",
        *wrap(pci_ver + ", " + pci_origin
              + "; gives the chip codename and, for ids not in the driver list, the name."),
        "  CC-CHIP  compute capability from crates/gpuenv-kb/data/gpu_chips.tsv (chip -> compute capability",
        "      from NVIDIA's CUDA GPUs pages via the products pci.ids names under each chip; per-chip",
        "      sources and evidence are in that file).",
        "",
        "Rows: {total} ({in_sg} in the driver list, {pci_only} from pci.ids only; {with_cc} with a compute".format(**stats),
        "capability). pci.ids-only rows are Kepler-or-newer chips minus non-GPU functions (audio, USB,",
        "bridges, NVSwitch, PCIe hosts).",
    ]
    return "".join(("# " + l).rstrip() + "\n" for l in lines)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--supported-gpus", required=True, help="supported-gpus.json or .json.gz")
    ap.add_argument("--pci-ids", required=True, help="pci.ids text file")
    ap.add_argument("--chips", default=os.path.join(root, "crates/gpuenv-kb/data/gpu_chips.tsv"))
    ap.add_argument("--out", default=os.path.join(root, "crates/gpuenv-kb/data/gpus.tsv"),
                    help="output path, or - for stdout")
    ap.add_argument("--supported-gpus-origin", default=DEFAULT_SG_ORIGIN)
    ap.add_argument("--pci-ids-origin", default=DEFAULT_PCI_ORIGIN)
    args = ap.parse_args(argv)

    sg = read_supported_gpus(args.supported_gpus)
    pci, pci_version, pci_date = read_pci_ids(args.pci_ids)
    chip_rows = read_chips(args.chips)

    ids = set(sg)
    for dev, full in pci.items():
        chip, _ = split_pci_name(full)
        if chip and KEPLER_PLUS_RE.match(chip) and not NOT_A_GPU_RE.search(full):
            ids.add(dev)

    rows = []
    for dev in sorted(ids):
        sources = []
        full = pci.get(dev)
        chip = bracket = ""
        if full is not None:
            chip, bracket = split_pci_name(full)
        name = ""
        legacy = ""
        if dev in sg:
            sources.append("DEBIAN-SUPPORTED-GPUS-535")
            name = sg[dev]["name"] or ""
            legacy = sg[dev]["legacy"]
        if full is not None:
            sources.append("PCI-IDS")
            if not name:
                name = bracket or full
        if not name:
            # in the driver list with disagreeing subsystem names and unknown to pci.ids
            name = " / ".join(sg[dev]["names"])
        cc = cc_for_chip(chip, chip_rows) if chip else ""
        if cc:
            sources.append("CC-CHIP")
        for value in (chip, cc, name, legacy):
            if "\t" in value or "\n" in value:
                raise SystemExit(f"device {dev:04x}: field contains a tab or newline: {value!r}")
        rows.append((f"{dev:04x}", chip, cc, name, legacy, ";".join(sources)))

    stats = {
        "total": len(rows),
        "in_sg": sum(1 for r in rows if "DEBIAN-SUPPORTED-GPUS-535" in r[5]),
        "pci_only": sum(1 for r in rows if "DEBIAN-SUPPORTED-GPUS-535" not in r[5]),
        "with_cc": sum(1 for r in rows if r[2]),
    }
    text = header_comment(args.supported_gpus_origin, args.pci_ids_origin, pci_version, pci_date, stats)
    text += HEADER + "\n" + "".join("\t".join(r) + "\n" for r in rows)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    print(
        f"{stats['total']} rows ({stats['in_sg']} in driver list, {stats['pci_only']} pci.ids only), "
        f"{stats['with_cc']} with compute capability",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
