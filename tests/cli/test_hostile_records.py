"""Issue 51: a results file that ringbench writes, every reader reads, and accept judges what ran.

One real sweep writes every kind of record that did not run or failed (results_relations.hpp's one
rule): configurations skipped as invalid under --skip-invalid (documents that do not make up S, a
hybrid whose U does not divide c), forward and backward; a configuration that failed in its first
round and one that failed in a later round (--inject-fault). report, compare, trend,
accept and fleet each read it (exit 0 or 1, never 2). Then: doc-zigzag's padding past 2^40 is
refused when the sweep is validated; accept refuses results of another sweep than its profile's,
naming the first difference; and judges an overlap check at c = 1 N/A."""
import json
import os
import shutil
import unittest

from ringbench_test import read_json, run, tempdir, write_json

AXES = {"seq": [256, 512], "cp": [1, 2], "split": "zigzag", "variant": ["ring", "hybrid"], "heads": 2, "kv_heads": 2, "head_dim": 8,
        "repeats": 2, "rounds": 2, "phase": ["fwd", "fwd+bwd"], "ulysses_degree": 2,
        "documents": ["128+128", "256+256"]}
SWEEP = ["--seq", "256,512", "--cp", "1,2", "--split", "zigzag", "--variant", "ring,hybrid", "--heads", "2", "--kv-heads", "2",
         "--head-dim", "8", "--repeats", "2", "--rounds", "2", "--phase", "fwd,fwd+bwd", "--ulysses-degree", "2",
         "--documents", "128+128,256+256", "--skip-invalid", "--no-interleave"]
PROFILE = {"name": "records", "sweep": AXES,
           "checks": [{"name": "correctness", "metric": "correctness"},
                      {"name": "overlap", "metric": "overlap_fraction", "min": 0}]}


class EveryRecordIsRead(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        d = cls.d = cls.tmp.name
        write_json(os.path.join(d, "profile.json"), PROFILE)
        # Configurations 8 and 10 (S = 256 at c = 2, 128+128: forward and fwd+bwd) fail in their second
        # round, keeping the first's plan and timing.
        p = run("run", *SWEEP, "--inject-fault", "throw@8,10/2", "--out", os.path.join(d, "out"))
        assert p.returncode == 1, p.stderr[-3000:]
        cls.res = os.path.join(d, "out", "results.json")
        cls.doc = read_json(cls.res)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_sweep_wrote_every_kind_of_record(self):
        runs = self.doc["runs"]
        kinds = {(r["status"], r["config"].get("phase"), bool(r.get("plan"))) for r in runs}
        self.assertIn(("skipped", "fwd", False), kinds)
        self.assertIn(("skipped", "fwd+bwd", False), kinds)
        failed = {r["config"]["phase"] for r in runs if r["status"] == "failed" and r.get("timing") and r.get("plan")}
        self.assertEqual(failed, {"fwd", "fwd+bwd"})
        skipped = [r for r in runs if r["status"] == "skipped"]
        self.assertTrue(any(sum(r["config"]["document_lengths"]) != r["config"]["seq"] for r in skipped))

    def test_every_reader_reads_it(self):
        d = self.d
        history = os.path.join(d, "history")
        os.makedirs(history, exist_ok=True)
        for day in ("2026-12-01", "2026-12-02"):
            shutil.copy(self.res, os.path.join(history, f"{day}.json"))
        nodes = os.path.join(d, "nodes", "n0")
        os.makedirs(nodes, exist_ok=True)
        shutil.copy(self.res, nodes)
        for argv in (["report", self.res, "-o", os.path.join(d, "r.html")],
                     ["compare", self.res, self.res],
                     ["trend", history, "-o", os.path.join(d, "t.html")],
                     ["accept", os.path.join(d, "profile.json"), "--results", self.res],
                     ["fleet", os.path.join(d, "nodes")]):
            with self.subTest(argv[0]):
                p = run(*argv, timeout=120)
                self.assertIn(p.returncode, (0, 1), p.stderr[-2000:])

    def test_accept_judges_overlap_at_c1_not_applicable(self):
        p = run("accept", os.path.join(self.d, "profile.json"), "--results", self.res, "--json", timeout=120)
        self.assertIn(p.returncode, (0, 1), p.stderr[-2000:])
        check = next(c for c in json.loads(p.stdout)["checks"] if c["name"] == "overlap")
        at_c1 = [o for o in check["runs"] if " c=1 " in o["label"]]
        self.assertTrue(at_c1)
        for o in at_c1:
            self.assertTrue(o["na"], o)
            self.assertIn("c = 1: nothing was transferred", o["measured"])

    def test_accept_refuses_results_of_another_sweep_naming_the_first_difference(self):
        other = dict(PROFILE, sweep=dict(AXES, seq=[4096]))
        path = os.path.join(self.d, "other.json")
        write_json(path, other)
        p = run("accept", path, "--results", self.res, "--junit", os.path.join(self.d, "j.xml"), timeout=120)
        self.assertEqual(p.returncode, 2, p.stdout[-2000:])
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("/runs/0/config/seq", lines[0])
        self.assertIn("4096", lines[0])
        self.assertFalse(os.path.exists(os.path.join(self.d, "j.xml")))


class PaddingPastTheBound(unittest.TestCase):
    def test_a_padded_s_past_2_40_is_refused_before_anything_is_written(self):
        with tempdir() as t:
            out = os.path.join(t, "out")
            for extra in ([], ["--skip-invalid"]):
                with self.subTest(extra=extra):
                    p = run("run", "--seq", str(2**40), "--cp", "4", "--split", "doc-zigzag", "--documents",
                            f"{2**40 - 1}+1", "--pad-documents", "--heads", "1", "--kv-heads", "1", "--head-dim",
                            "8", *extra, "--out", out, timeout=60)
                    self.assertEqual(p.returncode, 2, p.stderr[-2000:])
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                    self.assertFalse(os.path.exists(os.path.join(out, "results.json")))


if __name__ == "__main__":
    unittest.main()
