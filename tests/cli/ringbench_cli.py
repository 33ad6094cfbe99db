"""Helpers for the end-to-end tests: run the built ringbench binary and read what it wrote."""
import json
import os
import subprocess
import tempfile
import time

BIN = os.environ.get("RINGBENCH_BIN", "ringbench")
SOURCE_DIR = os.environ.get("RINGBENCH_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def run(*args, timeout=600, cwd=None):
    """Runs ringbench with args; returns the CompletedProcess (text mode)."""
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def read_json(path):
    with open(path) as f:
        return json.load(f)


def tempdir():
    return tempfile.TemporaryDirectory(prefix="ringbench-test-")


# A sweep of 24 small configurations, each long enough for a signal to land mid-sweep.
LONG_SWEEP = ["run", "--seq", "512", "--cp", "1,2,4,8", "--split", "contiguous,zigzag,striped", "--variant",
              "ring,allgather", "--heads", "4", "--kv-heads", "2", "--head-dim", "32", "--repeats", "20"]


def start_and_wait_for_lines(out, lines, stdout=subprocess.DEVNULL, timeout=300):
    """Starts LONG_SWEEP writing to `out` and returns the Popen once results.jsonl has `lines` lines
    (or the sweep ended, or the timeout passed)."""
    proc = subprocess.Popen([BIN, *LONG_SWEEP, "--out", out], stdout=stdout, stderr=subprocess.PIPE, text=True)
    jsonl = os.path.join(out, "results.jsonl")
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(jsonl):
            with open(jsonl) as f:
                if sum(1 for _ in f) >= lines:
                    break
        time.sleep(0.05)
    return proc
