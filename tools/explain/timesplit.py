#!/usr/bin/env python3
"""Measures `gpuenv explain` by time: a build of a past commit explains the corpus reports that
were collected after it, none of which its catalogue or word model had seen.

    tools/explain/timesplit.py COMMIT [--current-word-model] [--target-dir DIR] [--keep]

The reports are the files of crates/gpuenv-explain/tests/corpus in the working tree whose
`# source:` link is not in that directory at COMMIT; each is labelled as it is now. The build
explains each with `--no-probe --format json` (text alone, as for a log from elsewhere), and the
tool prints top-1 accuracy overall, by the level of the answer, and for the word model's answers.

With --current-word-model it then puts this tree's word model (src/words.rs, data/words.toml)
into the past build, trains it from COMMIT's corpus (examples/train_word_model.rs) and measures
again: a change to the word model measured on reports it has not seen. That works as long as the
past commit's src/lib.rs still compiles against the current src/words.rs (it does for c4978b3
and later; tests/corpus.rs records the figures).

Needs git, cargo and Python 3.9+; builds into a scratch directory (or --target-dir, which a
second run can reuse) and removes its git worktree afterwards unless --keep. Changes nothing in
the working tree.
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

CORPUS = Path("crates/gpuenv-explain/tests/corpus")
EXPLAIN = Path("crates/gpuenv-explain")


def run(cmd, **kwargs):
    return subprocess.run(cmd, check=True, **kwargs)


def header(path):
    """(source, expected, header line count) of a corpus file."""
    with open(path, "rb") as f:
        lines = [f.readline() for _ in range(3)]
    source = lines[0].decode("utf-8", "replace").strip().removeprefix("# source: ")
    expected = lines[1].decode("utf-8", "replace").strip().removeprefix("# expected: ")
    count = 3 if lines[2].startswith(b"# facts: ") else 2
    return source, expected, count


def later_cases(repo, commit):
    """The working tree's corpus reports whose source link is not in the corpus at `commit`."""
    old = run(
        ["git", "-C", str(repo), "grep", "-h", "^# source: ", commit, "--", str(CORPUS)],
        capture_output=True,
        text=True,
    ).stdout
    seen = {line.removeprefix("# source: ").strip() for line in old.splitlines()}
    if not seen:
        sys.exit(f"timesplit: no corpus at {commit}")
    cases = []
    for path in sorted((repo / CORPUS).glob("*/*.txt")):
        source, expected, count = header(path)
        if source not in seen:
            cases.append((path, expected, count))
    return cases


def build(tree, target):
    run(
        ["cargo", "build", "--release", "-q", "-p", "gpuenv", "--target-dir", str(target)],
        cwd=tree,
    )
    return target / "release" / "gpuenv"


def measure(binary, cases, scratch):
    """Top-1 counts of `binary` explaining each case's body with `--no-probe`."""
    counts = Counter()
    for i, (path, expected, header_lines) in enumerate(cases):
        body = path.read_bytes().split(b"\n", header_lines)[-1]
        log = scratch / f"{i}.txt"
        log.write_bytes(body)
        out = subprocess.run(
            [str(binary), "explain", "--no-probe", "--format", "json", str(log)],
            capture_output=True,
        )
        try:
            explanation = json.loads(out.stdout)
        except json.JSONDecodeError:
            counts["failed to run"] += 1
            explanation = {}
        answer = explanation.get("answer")
        diagnoses = explanation.get("diagnoses") or [{}]
        if answer in (None, "unknown"):
            kind = "unknown"
        elif diagnoses[0].get("signature") == "words":
            kind = "word model"
        else:
            kind = diagnoses[0].get("level", "?")
        right = answer == expected
        counts[(kind, right)] += 1
        counts[("all", right)] += 1
    return counts


def report(name, counts):
    total = counts[("all", True)] + counts[("all", False)]
    right = counts[("all", True)]
    print(f"{name}: {right}/{total} = {100 * right / max(total, 1):.1f}% top-1")
    for kind in ["high", "medium", "low", "word model", "unknown"]:
        n = counts[(kind, True)] + counts[(kind, False)]
        if n:
            print(f"  {kind:<11} {counts[(kind, True)]:>4} right of {n}")
    if counts["failed to run"]:
        print(f"  explain failed on {counts['failed to run']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit")
    parser.add_argument("--current-word-model", action="store_true")
    parser.add_argument("--target-dir", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the worktree and logs")
    args = parser.parse_args()

    repo = Path(__file__).resolve().parents[2]
    commit = run(
        ["git", "-C", str(repo), "rev-parse", "--verify", args.commit + "^{commit}"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    cases = later_cases(repo, commit)
    print(f"{len(cases)} corpus reports collected after {commit[:7]}")
    if not cases:
        return

    scratch = Path(tempfile.mkdtemp(prefix="gpuenv-timesplit."))
    tree = scratch / "tree"
    target = args.target_dir or scratch / "target"
    run(["git", "-C", str(repo), "worktree", "add", "-q", "--detach", str(tree), commit])
    try:
        logs = scratch / "logs"
        logs.mkdir()
        report(f"gpuenv at {commit[:7]}", measure(build(tree, target), cases, logs))
        if args.current_word_model:
            model = scratch / "words.tsv"
            run(
                [
                    "cargo", "run", "--release", "-q", "-p", "gpuenv-explain",
                    "--example", "train_word_model", "--",
                    str(tree / CORPUS), str(model),
                ],
                cwd=repo,
            )
            shutil.copy(repo / EXPLAIN / "src/words.rs", tree / EXPLAIN / "src/words.rs")
            shutil.copy(repo / EXPLAIN / "data/words.toml", tree / EXPLAIN / "data/words.toml")
            shutil.copy(model, tree / EXPLAIN / "data/words.tsv")
            binary = build(tree, target)
            report(f"gpuenv at {commit[:7]}, this tree's word model", measure(binary, cases, logs))
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)])
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
