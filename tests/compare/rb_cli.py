"""Helpers for the compare/accept/nightly end-to-end tests: run the built ringbench binary, make
small real CPU sweeps, and rewrite results files (planted slowdowns, other hosts)."""
import copy
import json
import os
import subprocess
import sys
import tempfile

BIN = os.environ.get("RINGBENCH_BIN", "ringbench")
SOURCE_DIR = os.path.abspath(os.environ.get("RINGBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")))

# A small real CPU sweep: four configurations, 12 timed passes each, about a second in all.
SMALL_SWEEP = ["--seq", "256,512", "--cp", "1,2", "--split", "zigzag", "--variant", "ring",
               "--heads", "4", "--kv-heads", "2", "--head-dim", "32", "--dtype", "float32"]


def run(*args, timeout=600, cwd=None, env=None):
    """Runs ringbench with args; returns the CompletedProcess (text mode)."""
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


def sweep(out_dir, repeats=12, extra=(), shape=None):
    """Runs SMALL_SWEEP (or `shape`) into out_dir and returns the path of its results.json."""
    p = run("run", *(shape or SMALL_SWEEP), "--repeats", repeats, "--warmup", 2, "--out", out_dir, *extra)
    if p.returncode != 0:
        raise AssertionError(f"ringbench run failed ({p.returncode}): {p.stderr}")
    return os.path.join(out_dir, "results.json")


def read_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def scale_timing(doc, factor):
    """A copy of a results document whose every timed sample (and summary) is multiplied by factor,
    as a planted slowdown (factor > 1) or speed-up; attention TFLOP/s scales by 1/factor."""
    doc = copy.deepcopy(doc)
    for r in doc["runs"]:
        t = r.get("timing")
        if not t:
            continue
        t["samples_ms"] = [x * factor for x in t["samples_ms"]]
        for k in ("min_ms", "median_ms", "mean_ms", "p90_ms", "p99_ms", "max_ms", "stdev_ms"):
            if k in t:
                t[k] *= factor
        if r.get("metrics") and r["metrics"].get("attention_tflops"):
            r["metrics"]["attention_tflops"] /= factor
    return doc


def tempdir():
    return tempfile.TemporaryDirectory(prefix="ringbench-compare-")


def skip_process(reason):
    """Exit code 77 is the ctest SKIP_RETURN_CODE of these tests: the machine lacks a prerequisite."""
    print(f"SKIPPED: {reason}")
    sys.exit(77)
