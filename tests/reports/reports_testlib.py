"""Shared by the report tests: run the built ringbench, make a small real results file (with a
skipped and a failed configuration, so every section has something to show), read and write JSON."""
import json
import os
import subprocess
import tempfile

BIN = os.environ.get("RINGBENCH_BIN", "ringbench")
SOURCE_DIR = os.environ.get("RINGBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
ARTIFACT_DIR = os.environ.get("RINGBENCH_ARTIFACT_DIR", os.path.join(tempfile.gettempdir(), "ringbench-artifacts"))
SCHEMA = os.path.join(SOURCE_DIR, "reports", "results.schema.json")


def run(*args, timeout=600):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=timeout)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def small_sweep(out_dir):
    """A real sweep: S 96 and 100 over c 1, 2, 3, 4 and every split. S = 100 breaks some splits'
    divisibility rules, so --skip-invalid records those as skipped with their reason. Returns the
    path of results.json."""
    p = run("run", "--seq", "96,100", "--cp", "1,2,3,4", "--split", "contiguous,zigzag,striped",
            "--variant", "ring,allgather", "--heads", "4", "--kv-heads", "2", "--head-dim", "16",
            "--dtype", "float64", "--repeats", "2", "--skip-invalid", "--out", out_dir)
    if p.returncode != 0:
        raise AssertionError(f"ringbench run failed ({p.returncode}): {p.stderr[-2000:]}")
    return os.path.join(out_dir, "results.json")


def tempdir():
    return tempfile.TemporaryDirectory(prefix="ringbench-report-test-")
