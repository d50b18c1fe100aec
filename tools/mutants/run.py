#!/usr/bin/env python3
"""Mutation check: does the test suite fail when a mechanism is broken?

Each mutant of `mutants.toml` replaces one snippet of the library by a variant that still
compiles but breaks one rule (a misroute limit, the ring's bubble, ECM's threshold, ...). For
each, this script applies it in a separate git worktree (your checkout and its build are left
alone), runs the tests, and records whether they failed ("killed"), passed ("SURVIVED": the
suite cannot see that rule break), or did not build. See docs/mutation.md.

    python3 tools/mutants/run.py                 # every mutant, `cargo test --release -p arcsim`
    python3 tools/mutants/run.py M03 M07         # some of them
    python3 tools/mutants/run.py --workspace     # also the CLI's tests (figure claims)
    python3 tools/mutants/run.py --no-fail-fast M14   # every test binary, not only up to the first failing one
    python3 tools/mutants/run.py --list          # what the mutants break

Each mutant rebuilds the library and runs its tests: about 2 to 6 minutes on two cores
(6 to 15 with --no-fail-fast).
Results go to stdout and to target/mutants/results.csv in this checkout.
"""

import argparse
import csv
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def git(*args, cwd=ROOT, check=True):
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True, text=True)


def load(path):
    with open(path, "rb") as f:
        mutants = tomllib.load(f)["mutant"]
    ids = [m["id"] for m in mutants]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"{path}: duplicate mutant ids {sorted(dup)}")
    return mutants


def worktree(path):
    """A detached worktree of HEAD at `path`, reset to HEAD (its build directory is kept)."""
    head = git("rev-parse", "HEAD").stdout.strip()
    if not (path / ".git").exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        git("worktree", "add", "--detach", "--force", str(path), head)
    # The worktree is detached: a hard reset moves it to HEAD and drops a leftover mutant.
    git("reset", "--quiet", "--hard", head, cwd=path)
    return head


def failures(log):
    """The failing tests of a cargo test log, each as `binary::test` (`lib` for the unit tests,
    `doc` for the doctests)."""
    names, binary = [], "?"
    for line in log.splitlines():
        words = line.split()
        if words[:1] == ["Running"] and len(words) >= 2:
            # `Running unittests src/lib.rs (...)` or `Running tests/ofar.rs (...)`
            src = words[2] if words[1] == "unittests" and len(words) > 2 else words[1]
            binary = "lib" if src.endswith("lib.rs") else Path(src).stem
        elif words[:1] == ["Doc-tests"]:
            binary = "doc"
        elif line.startswith("test ") and line.rstrip().endswith("FAILED"):
            names.append(f"{binary}::{line[5:line.rfind(' ... ')].strip()}")
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ids", nargs="*", help="mutant ids to run (default: all)")
    ap.add_argument("--mutants", type=Path, default=HERE / "mutants.toml")
    ap.add_argument("--worktree", type=Path, default=ROOT / "target" / "mutants" / "worktree")
    ap.add_argument("--workspace", action="store_true", help="run the whole workspace's tests")
    ap.add_argument("--no-fail-fast", action="store_true",
                    help="run every test binary (cargo stops at the first failing one otherwise)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per mutant")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = ap.parse_args()

    mutants = load(args.mutants)
    if args.ids:
        unknown = set(args.ids) - {m["id"] for m in mutants}
        if unknown:
            sys.exit(f"unknown mutant ids {sorted(unknown)}; --list shows them")
        by_id = {m["id"]: m for m in mutants}
        mutants = [by_id[i] for i in dict.fromkeys(args.ids)]  # in the order given
    if args.list:
        for m in mutants:
            print(f"{m['id']}  {m['file']}: {m['breaks']}")
        return

    # Check every mutant applies before the first (long) build.
    for m in mutants:
        n = (ROOT / m["file"]).read_text().count(m["find"])
        if n != 1:
            sys.exit(f"{m['id']}: `find` occurs {n} times in {m['file']} (must be once)")

    wt = args.worktree.resolve()
    head = worktree(wt)
    cmd = ["cargo", "test", "--release"] + (["--workspace"] if args.workspace else ["-p", "arcsim"])
    if args.no_fail_fast:
        cmd.append("--no-fail-fast")
    out_dir = ROOT / "target" / "mutants"
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"HEAD {head[:10]}, worktree {wt}, `{' '.join(cmd)}` per mutant", flush=True)

    rows = []
    for m in mutants:
        src = wt / m["file"]
        original = src.read_text()
        if original.count(m["find"]) != 1:
            sys.exit(f"{m['id']}: the worktree's {m['file']} differs from this checkout's")
        src.write_text(original.replace(m["find"], m["replace"]))
        start = time.time()
        try:
            # One stream, so that each test result follows the `Running` line of its binary.
            run = subprocess.run(
                cmd, cwd=wt, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                timeout=args.timeout, env={**os.environ, "CARGO_TERM_COLOR": "never"},
            )
            log, code = run.stdout, run.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout or b""
            log, code = out.decode() if isinstance(out, bytes) else out, None
        finally:
            src.write_text(original)
        (out_dir / f"{m['id']}.log").write_text(log)
        failed = failures(log)
        if code is None:
            verdict = "timeout"
        elif code == 0:
            verdict = "SURVIVED"
        elif failed:
            verdict = "killed"
        else:
            verdict = "no build"
        secs = round(time.time() - start)
        rows.append([m["id"], verdict, secs, m["breaks"], " ".join(failed)])
        shown = ", ".join(failed[:4]) + (f" and {len(failed) - 4} more" if len(failed) > 4 else "")
        print(f"{m['id']}  {verdict:8}  {secs:5}s  {m['breaks']}"
              + (f"  [{shown}]" if failed else ""), flush=True)

    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "verdict", "seconds", "breaks", "failing_tests"])
        w.writerows(rows)
    survived = [r[0] for r in rows if r[1] != "killed"]
    print(f"{len(rows) - len(survived)} of {len(rows)} killed"
          + (f"; not killed: {' '.join(survived)}" if survived else ""))
    sys.exit(1 if survived else 0)


if __name__ == "__main__":
    main()
