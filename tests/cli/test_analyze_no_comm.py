"""`ringbench analyze` where a classification finds no communication (docs/cli.md, analyze): one line
that says so and why, instead of a table of comm 0 and `overlap (all ranks): n/a%`; on ringbench's
Perfetto file, whose transfers HTA's kernel-name rule cannot see, one line instead of the "by kernel
name" table. Traces from a tiny `run --trace` (c = 1 and c = 2) and a hand-made Kineto trace."""
import json
import os
import unittest

from ringbench_test import read_json, run, tempdir

SWEEP = ["--seq", "64", "--cp", "1,2", "--split", "zigzag", "--heads", "2", "--kv-heads", "1", "--head-dim", "8",
         "--repeats", "2", "--trace"]


def kineto_trace(with_copy_stream):
    """A PyTorch-profiler-like trace of one rank: two compute kernels on stream 7 and, optionally, a
    peer copy on stream 8 under the second (no NCCL kernel: HTA's rule sees no comm)."""
    events = [
        {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "ts": 0, "dur": 100, "pid": 0, "tid": 7,
         "args": {"stream": 7, "device": 0}},
        {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "ts": 120, "dur": 100, "pid": 0, "tid": 7,
         "args": {"stream": 7, "device": 0}},
    ]
    if with_copy_stream:
        events.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", "ts": 150, "dur": 100,
                       "pid": 0, "tid": 8, "args": {"stream": 8, "device": 0}})
    return {"traceEvents": events, "distributedInfo": {"rank": 0}}


class AnalyzeNoComm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        out = os.path.join(cls.tmp.name, "res")
        p = run("run", *SWEEP, "--out", out)
        assert p.returncode == 0, p.stderr
        ids = {r["config"]["cp"]: r["config"]["id"] for r in read_json(os.path.join(out, "results.json"))["runs"]}
        cls.traces = {c: os.path.join(out, "traces", ids[c]) for c in ids}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def analyze(self, *args):
        p = run("analyze", *args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_a_c1_trace_says_there_is_no_comm_and_why(self):
        path = self.traces[1] + ".json"
        out = self.analyze(path)
        self.assertIn(f"no communication found in {path}: no interval has kind comm (the trace holds rank 0 only: a "
                      "run at c = 1 moves no K/V); overlap and exposed comm cannot be computed\n", out)
        self.assertNotIn(" rank      comm_ms", out)  # no table of zeros
        self.assertNotIn("n/a", out)
        self.assertIn("imbalance (max/mean attention time): 1.000\n", out)
        # --json is unchanged: the metrics, with a null overlap.
        j = json.loads(self.analyze("--json", path))
        self.assertIsNone(j["metrics"]["overlap_fraction"])

    def test_the_perfetto_file_has_no_empty_by_kernel_name_table(self):
        out = self.analyze(self.traces[2] + ".json")
        self.assertEqual(out.count(" rank      comm_ms"), 1, out)  # the roles' table only
        self.assertNotIn("n/a", out)
        self.assertNotIn("; by kernel name:", out)
        self.assertRegex(out, r"\n\d+ of \d+ intervals classify differently by kernel name \(HTA's rule: nccl\*, "
                              r"\*ncclKernel\*\), which finds no communication here: the comm intervals are named "
                              r"kv_recv, not nccl\*; HTA reads a run's per-rank files")

    def test_the_per_rank_files_agree_with_hta(self):
        out = self.analyze(self.traces[2])
        self.assertEqual(out.count(" rank      comm_ms"), 1, out)
        self.assertNotIn("classify differently", out)
        self.assertRegex(out, r"overlap \(all ranks\): \d+\.\d%")

    def test_a_kineto_trace_without_nccl_kernels(self):
        with tempdir() as d:
            path = os.path.join(d, "rank0.json")
            with open(path, "w") as f:
                json.dump(kineto_trace(True), f)
            out = self.analyze(path)
            self.assertIn(f"no communication found in {path}: no kernel or interval was classified as comm (by kernel "
                          "name, as HTA does: NCCL kernels, nccl* or *ncclKernel*; Memcpy and Memset, peer copies "
                          "included, count as memory; name a lane of peer copies or of your own comm kernels with "
                          "--stream-role 'stream 7=comm'); overlap and exposed comm cannot be computed\n", out)
            self.assertNotIn(" rank      comm_ms", out)
            self.assertNotIn("n/a", out)
            # Naming the copies' stream as comm gives the table, with the overlap (70 of its 100 us).
            out = self.analyze("--stream-role", "stream 8=comm", path)
            self.assertEqual(out.count(" rank      comm_ms"), 1, out)
            self.assertIn("overlap (all ranks): 70.0%", out)
            # A role given for a lane with no event: said so.
            out = self.analyze("--stream-role", "stream 9=comm", path)
            self.assertIn("no --stream-role LANE=comm lane has an event", out)


if __name__ == "__main__":
    unittest.main()
