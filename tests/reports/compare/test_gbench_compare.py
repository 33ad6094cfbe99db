"""The micro-benchmarks' JSON output works with Google Benchmark's own compare.py (Debian's
libbenchmark-tools): two real runs of ringbench_micro, compared by compare.py with its U test.
Skipped (exit 77) when compare.py, its Python dependencies (scipy, numpy) or ringbench_micro
(RINGBENCH_BUILD_BENCHMARKS=ON) are missing."""
import glob
import json
import os
import subprocess
import sys
import unittest

from ringbench_test import skip_process, tempdir

MICRO = os.environ.get("RINGBENCH_MICRO_BIN", "")
# Small and quick: one metrics benchmark size; repetitions give compare.py samples for its U test.
FLAGS = ["--benchmark_filter=BM_ComputeMetrics/1024$", "--benchmark_repetitions=9", "--benchmark_min_time=0.01",
         "--benchmark_format=json"]


def find_compare_py():
    for c in ["/usr/share/benchmark/compare.py", *glob.glob("/usr/share/*/benchmark/compare.py")]:
        if os.path.isfile(c):
            return c
    try:
        out = subprocess.run(["dpkg", "-L", "libbenchmark-tools"], capture_output=True, text=True).stdout
        return next((l for l in out.splitlines() if l.endswith("/compare.py")), None)
    except FileNotFoundError:
        return None


class GbenchCompare(unittest.TestCase):
    def test_compare_py_reads_two_runs(self):
        compare_py = find_compare_py()
        with tempdir() as d:
            outs = []
            for name in ("a", "b"):
                path = os.path.join(d, name + ".json")
                p = subprocess.run([MICRO, *FLAGS, f"--benchmark_out={path}"], capture_output=True, text=True,
                                   timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(path) as f:
                    doc = json.load(f)
                self.assertIn("context", doc)
                names = {b["name"] for b in doc["benchmarks"]}
                self.assertTrue(any(n.startswith("BM_ComputeMetrics/1024") for n in names), names)
                outs.append(path)
            p = subprocess.run([sys.executable, compare_py, "--no-color", "benchmarks", *outs], capture_output=True,
                               text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("BM_ComputeMetrics/1024", p.stdout)
            self.assertIn("_pvalue", p.stdout)  # its Mann-Whitney U test ran on the repetitions
            self.assertIn("U Test, Repetitions: 9 vs 9", p.stdout)
            # --dump_to_json writes the machine-readable diff CI can keep.
            diff = os.path.join(d, "diff.json")
            p = subprocess.run([sys.executable, compare_py, "--no-color", "--dump_to_json", diff, "benchmarks", *outs],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(diff) as f:
                self.assertTrue(any(r["name"].startswith("BM_ComputeMetrics/1024") for r in json.load(f)))


if __name__ == "__main__":
    if not MICRO or not os.access(MICRO, os.X_OK):
        skip_process("ringbench_micro is not built (configure with -DRINGBENCH_BUILD_BENCHMARKS=ON)")
    if not find_compare_py():
        skip_process("Google Benchmark's compare.py not found (Debian: apt-get install libbenchmark-tools)")
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        skip_process("compare.py needs numpy and scipy (Debian: python3-numpy python3-scipy)")
    unittest.main(verbosity=2)
