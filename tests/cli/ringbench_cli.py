"""Helpers for the end-to-end tests: run the built ringbench binary and read what it wrote."""
import json
import os
import subprocess
import tempfile

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
