"""c = 1 runs once (docs/design.md, "c = 1 runs once"): a sweep of three splits and two variants at
c = 1 measures one configuration and records the other five as its aliases, in sweep order, with the
same measurement and their own plans; `--c1-all` measures all six; compare, trend and the sweep's
own totals count an alias once."""
import json
import os
import re
import unittest

from ringbench_test import read_json, run, tempdir

SWEEP = ["--seq", "128", "--cp", "1,2", "--split", "zigzag,contiguous,striped", "--variant", "ring,allgather",
         "--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--dtype", "float32", "--repeats", "3", "--warmup", "1"]


def sweep(out, *extra):
    p = run("run", *SWEEP, "--out", out, *extra)
    assert p.returncode == 0, p.stderr
    return p, read_json(os.path.join(out, "results.json"))


class C1Alias(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.p, cls.doc = sweep(os.path.join(cls.tmp.name, "a"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_c1_is_measured_once_and_the_others_are_its_aliases(self):
        c1 = [r for r in self.doc["runs"] if r["config"]["cp"] == 1]
        self.assertEqual(len(c1), 6)
        measured = [r for r in c1 if "alias_of" not in r]
        self.assertEqual(len(measured), 1)
        first = measured[0]
        self.assertEqual((first["config"]["split"], first["config"]["variant"]), ("zigzag", "ring"))
        for r in c1:
            if r is first:
                continue
            self.assertEqual(r["alias_of"], first["config"]["id"])
            self.assertEqual(r["timing"]["samples_ms"], first["timing"]["samples_ms"])
            self.assertEqual(r["correctness"], first["correctness"])
            self.assertEqual(r["status"], "ok")
            # its own plan: contiguous's one rank holds one segment, zigzag's two
            segments = len(r["plan"]["per_rank"][0]["segments"])
            self.assertEqual(segments, 2 if r["config"]["split"] == "zigzag" else 1, r["config"]["id"])
        # c = 2 is measured for every split and variant
        self.assertTrue(all("alias_of" not in r for r in self.doc["runs"] if r["config"]["cp"] == 2))

    def test_results_keep_the_sweep_order_and_the_totals_count_an_alias_once(self):
        ids = [r["config"]["id"] for r in self.doc["runs"]]
        order = [(r["config"]["seq"], r["config"]["cp"]) for r in self.doc["runs"]]
        self.assertEqual(order, sorted(order), ids)  # all of c = 1 before c = 2, as the sweep lists them
        self.assertIn("ringbench: 7 ok, 0 failed, 0 skipped", self.p.stderr)
        self.assertIn("(c = 1: the same computation)", self.p.stderr)
        # The counter plans one step per alias from the start: 7 measured x 3 rounds + 5 aliases.
        counters = re.findall(r"^\[\s*(\d+)/(\d+)\]", self.p.stderr, re.M)
        self.assertTrue(counters)
        self.assertEqual({n for _, n in counters}, {"26"}, counters)
        self.assertEqual(counters[-1], ("26", "26"))

    def test_c1_all_measures_every_split_and_variant(self):
        with tempdir() as t:
            _, doc = sweep(os.path.join(t, "all"), "--c1-all")
            self.assertEqual([r for r in doc["runs"] if "alias_of" in r], [])
            medians = {r["timing"]["median_ms"] for r in doc["runs"] if r["config"]["cp"] == 1}
            self.assertEqual(len(medians), 6, "six measurements, not one copied")

    def test_compare_leaves_aliases_out_of_its_verdicts_and_its_error_rate(self):
        with tempdir() as t:
            _, other = sweep(os.path.join(t, "b"))
            p = run("compare", os.path.join(self.tmp.name, "a", "results.json"), os.path.join(t, "b", "results.json"),
                    "--json")
            self.assertIn(p.returncode, (0, 1), p.stderr)
            cmp = json.loads(p.stdout)
            self.assertEqual(len(cmp["aliases"]), 5)
            self.assertEqual(len(cmp["runs"]), 7)
            self.assertTrue(all(r["id"] not in cmp["aliases"] for r in cmp["runs"]))
            self.assertLessEqual(cmp["error_rate"]["tests"], 7)
            text = run("compare", os.path.join(self.tmp.name, "a", "results.json"), os.path.join(t, "b", "results.json"))
            self.assertIn("note: 5 configurations at c = 1 repeat another's measurement (alias_of) and are not "
                          "compared again", text.stdout)

    def test_aliases_in_one_file_only_are_left_out_of_both(self):
        # a baseline measured before 2.6.0 ran every c = 1 configuration
        with tempdir() as t:
            _, every = sweep(os.path.join(t, "all"), "--c1-all")
            p = run("compare", os.path.join(t, "all", "results.json"), os.path.join(self.tmp.name, "a", "results.json"),
                    "--json")
            cmp = json.loads(p.stdout)
            self.assertEqual(len(cmp["aliases"]), 5)
            self.assertNotIn("MISSING", {r["verdict"] for r in cmp["runs"]})


if __name__ == "__main__":
    unittest.main()
