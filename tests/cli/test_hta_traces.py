"""`run --trace` for the field's tools: per configuration, OUT/traces/<id>/rank<N>.json in the shape
Meta's HTA loads (checked field by field against what HTA reads), beside one Perfetto file with pids
from 1; and `analyze` on the folder, and on the Perfetto file, reproduces the run's own per-rank comm
and overlap figures. The link model makes the comm visible on the CPU backend."""
import glob
import json
import os
import re
import unittest

from ringbench_test import read_json, run, tempdir

SWEEP = ["run", "--seq", "512", "--cp", "4", "--split", "contiguous,zigzag", "--variant", "ring,allgather",
         "--heads", "4", "--kv-heads", "2", "--head-dim", "32", "--link-gbps", "2", "--repeats", "2", "--rounds", "1",
         "--trace"]
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}


class HtaTraces(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.out = os.path.join(cls.tmp.name, "out")
        p = run(*SWEEP, "--out", cls.out)
        assert p.returncode == 0, p.stderr
        cls.doc = read_json(os.path.join(cls.out, "results.json"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def folder(self, run_doc):
        return os.path.join(self.out, "traces", run_doc["config"]["id"])

    def test_one_file_per_rank_with_what_hta_reads(self):
        for r in self.doc["runs"]:
            files = sorted(glob.glob(os.path.join(self.folder(r), "rank*.json")))
            self.assertEqual([os.path.basename(f) for f in files], [f"rank{i}.json" for i in range(4)])
            for rank, path in enumerate(files):
                with self.subTest(path=path):
                    with open(path) as f:
                        text = f.read()
                    # HTA may find the rank with this pattern on the raw text.
                    self.assertEqual(int(re.search(r'"rank":\s+(\d+)', text).group(1)), rank)
                    doc = json.loads(text)
                    self.assertEqual(doc["distributedInfo"]["world_size"], 4)
                    events = [e for e in doc["traceEvents"] if e["ph"] == "X"]
                    device = [e for e in events if e["cat"] in DEVICE_CATS]
                    self.assertTrue(device)
                    launches = {e["args"]["correlation"]: e["ts"] for e in events if e["cat"] == "cuda_runtime"}
                    steps = sorted(e["ts"] for e in events if re.match(r"^ProfilerStep#\d+$", e["name"]))
                    self.assertEqual(len(steps), 2)
                    comm = 0
                    for e in device:
                        self.assertIsInstance(e["args"]["stream"], int)
                        self.assertGreaterEqual(e["args"]["stream"], 0)
                        self.assertGreaterEqual(e["args"]["correlation"], 0)
                        self.assertGreaterEqual(e["pid"], 1)
                        self.assertLess(launches[e["args"]["correlation"]], steps[-1])  # HTA's filter keeps it
                        is_comm = bool(re.match(r"^nccl.*Kernel", e["name"]))
                        self.assertEqual(is_comm, e["args"]["kind"] == "comm", e["name"])
                        comm += is_comm
                    self.assertGreater(comm, 0, "the link model's transfers must show as comm")

    def test_perfetto_file_numbers_pids_from_one_and_never_overruns_a_track(self):
        for r in self.doc["runs"]:
            doc = read_json(self.folder(r) + ".json")
            self.assertEqual(doc["otherData"]["ringbench_trace_version"], 2)
            self.assertEqual(doc["otherData"]["ranks"], [{"pid": i + 1, "rank": i} for i in range(4)])
            self.assertNotIn("displayTimeUnit", doc)
            tracks = {}
            for e in doc["traceEvents"]:
                self.assertGreaterEqual(e["pid"], 1)
                if e["ph"] == "X":
                    tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["dur"]))
            for key, xs in tracks.items():
                xs.sort()
                for (a, da), (b, _) in zip(xs, xs[1:]):
                    self.assertLessEqual(a + da, b, f"track {key}: an event overruns the next")

    def test_analyze_reproduces_the_runs_own_overlap(self):
        for r in self.doc["runs"]:
            want = {m["rank"]: m for m in r["metrics"]["per_rank"]}
            for source in (self.folder(r), self.folder(r) + ".json"):
                with self.subTest(source=os.path.basename(source)):
                    p = run("analyze", "--json", source)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    got = {m["rank"]: m for m in json.loads(p.stdout)["metrics"]["per_rank"]}
                    self.assertEqual(sorted(got), [0, 1, 2, 3])
                    for rank, m in want.items():
                        self.assertAlmostEqual(got[rank]["comm_time_ms"], m["comm_time_ms"], places=9)
                        self.assertAlmostEqual(got[rank]["attention_time_ms"], m["attention_time_ms"], places=9)
                        if m["overlap_fraction"] is None:
                            self.assertIsNone(got[rank]["overlap_fraction"])
                        else:
                            self.assertAlmostEqual(got[rank]["overlap_fraction"], m["overlap_fraction"], places=9)
            # HTA's default filter changes nothing on ringbench's own files.
            p = run("analyze", "--json", "--hta-drop-last-step", self.folder(r))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(all(f["excluded_last_profiler_step"] == 0 for f in json.loads(p.stdout)["files"]))

    def test_a_folder_without_traces_is_bad_input(self):
        p = run("analyze", os.path.join(self.out))  # results.json is not a trace: exit 2, named
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        empty = os.path.join(self.tmp.name, "empty")
        os.makedirs(empty, exist_ok=True)
        p = run("analyze", empty)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("one trace file per rank", p.stderr)


if __name__ == "__main__":
    unittest.main()
