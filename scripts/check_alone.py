#!/usr/bin/env python3
"""Compiles C++ files alone (-fsyntax-only), each with the flags its target gives it, so a file that
compiles only inside a unity batch (where an earlier file of the batch lent it an include or an
alias) fails here, not later, when a new file shifts the batches (issue 55).

The flags come from a configured unity build's compile_commands.json: each unity source's command
is its target's, and the unity source names the files it includes. The files checked are those
changed since a base commit: `--base`, else the commit named in .ci/alone-base (the previous
landing), else every file the build compiles; the product's files only unless `--tests`. A file
costs about 2.7 CPU-seconds (fmt, json, CLI11 and cudnn-frontend parsed each time): the whole tree
is several minutes of two cores, more than the test command's budget leaves.

Usage: check_alone.py BUILD_DIR [--base COMMIT] [--all] [--tests] [--jobs N] [FILE...]
Exit 0: every file compiles alone; 1: one does not (its first errors printed); 2: bad input."""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

INCLUDE = re.compile(r'^#include "([^"]+\.(?:cpp|cc|cxx))"\s*$', re.M)


def commands_by_source(build_dir):
    """source path -> (directory, argv) from compile_commands.json, unity batches resolved."""
    path = os.path.join(build_dir, "compile_commands.json")
    try:
        with open(path) as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"check_alone: {path}: {e}: configure the build first")
    out = {}
    for e in entries:
        argv = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        src = os.path.normpath(os.path.join(e["directory"], e["file"]))
        if "/Unity/unity_" in src:
            with open(src) as f:
                for inc in INCLUDE.findall(f.read()):
                    out.setdefault(os.path.normpath(inc), (e["directory"], argv, src))
        elif src.endswith((".cpp", ".cc", ".cxx")):
            out.setdefault(src, (e["directory"], argv, src))
    return out


def syntax_only(argv, unit, source):
    """The compile command of `unit`, made to check `source` alone without writing anything."""
    cmd, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ", "-c"):
            skip = a != "-c"
            continue
        if a in ("-MD", "-MMD") or a == unit:
            continue
        cmd.append(a)
    return cmd + ["-fsyntax-only", source]


def changed_since(root, base):
    p = subprocess.run(["git", "-C", root, "diff", "--name-only", f"{base}..HEAD"], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return {os.path.normpath(os.path.join(root, n)) for n in p.stdout.split()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--base")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--tests", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    known = commands_by_source(args.build_dir)
    if args.files:
        wanted = {os.path.normpath(os.path.abspath(f)) for f in args.files}
        what = "the files given"
    elif args.all:
        wanted, what = set(known), "every file"
    else:
        base = args.base
        if base is None:
            try:
                with open(os.path.join(root, ".ci", "alone-base")) as f:
                    base = f.read().split()[0]
            except (OSError, IndexError):
                base = None
        changed = changed_since(root, base) if base else None
        if changed is None:
            wanted, what = set(known), "every file (no base commit in this history)"
        else:
            wanted, what = changed, f"the files changed since {base[:12]}"
    # The product's files: what the main preset builds, and the fuzz preset one by one. Tests are
    # leaves no preset builds outside its unity batches (`--tests` checks them too).
    tests_dir = os.path.join(root, "tests") + os.sep
    todo = sorted(f for f in wanted if f in known and (args.tests or args.files or not f.startswith(tests_dir)))
    unknown = sorted(f for f in (wanted if args.files else ()) if f not in known)
    if unknown:
        print(f"check_alone: not compiled by {args.build_dir}: {', '.join(unknown)}", file=sys.stderr)
        return 2

    def check(src):
        directory, argv, unit = known[src]
        p = subprocess.run(syntax_only(argv, unit, src), cwd=directory, capture_output=True, text=True)
        return src, p.returncode, p.stderr

    failed = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for src, rc, err in pool.map(check, todo):
            if rc != 0:
                failed.append(src)
                lines = [l for l in err.splitlines() if "error" in l][:3] or err.splitlines()[:3]
                print(f"check_alone: {os.path.relpath(src, root)} does not compile alone:", file=sys.stderr)
                for l in lines:
                    print(f"  {l}", file=sys.stderr)
    print(f"check_alone: {len(todo) - len(failed)} of {len(todo)} files compile alone ({what})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
