"""Hostile input, round four (issue 42), the small ones: a results file's `alias_of` is checked on
read (a c = 2 alias, a missing, a circular or a self target, another computation), and compare
checks each run against its own config wherever the aliases stand; `compare --repeat-of` checks FIRST's
shape, metric, version and pair; a profile's numbers read as the flags' do (`"seq": 6.4e1` is 64,
as `--seq 6.4e1` is); the seq axis stops expanding at the sweep's cap; and CLI11's own refusals
come out as ringbench's one line. Each case asserts the exit code, the one stderr line naming the
field, and that no file changed. One tiny sweep serves the whole module."""
import copy
import json
import os
import unittest

from ringbench_test import folder_state, read_json, run, run_measured, tempdir, write_json

# c = 1 twice (contiguous measured, zigzag its alias) and c = 2 once: three configurations.
SWEEP = ["--seq", "64", "--cp", "1,2", "--split", "contiguous,zigzag", "--heads", "2", "--kv-heads", "1",
         "--head-dim", "8", "--warmup", "0", "--repeats", "3", "--rounds", "1"]


class HostileInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.d = cls.tmp.name
        p = run("run", *SWEEP, "--c1-all", "--out", os.path.join(cls.d, "base"))
        assert p.returncode == 0, p.stderr
        cls.doc = read_json(os.path.join(cls.d, "base", "results.json"))
        # The same measurements recorded as the default sweep records them: c = 1 zigzag an alias of
        # c = 1 contiguous.
        cls.aliased = copy.deepcopy(cls.doc)
        runs = cls.aliased["runs"]
        cls.measured = next(i for i, r in enumerate(runs) if r["config"]["cp"] == 1 and r["config"]["split"] == "contiguous")
        cls.alias = next(i for i, r in enumerate(runs) if r["config"]["cp"] == 1 and r["config"]["split"] == "zigzag")
        cls.c2 = next(i for i, r in enumerate(runs) if r["config"]["cp"] == 2)
        measured = runs[cls.measured]
        runs[cls.alias] = {**copy.deepcopy(measured), "config": runs[cls.alias]["config"], "plan": runs[cls.alias]["plan"],
                           "alias_of": measured["config"]["id"]}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.work = tempdir()
        self.w = self.work.name

    def tearDown(self):
        self.work.cleanup()

    def refused(self, argv, *parts):
        before = folder_state(self.w)
        p = run(*argv, cwd=self.w)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        for part in parts:
            self.assertIn(part, lines[0])
        self.assertEqual(folder_state(self.w), before, f"{argv} changed files")
        return lines[0]

    def test_an_alias_the_sweep_never_writes_is_refused_on_read(self):
        base = write_json(os.path.join(self.w, "base.json"), self.aliased)
        a, m, c2 = self.alias, self.measured, self.c2
        ids = [r["config"]["id"] for r in self.aliased["runs"]]

        def crafted(change):
            doc = copy.deepcopy(self.aliased)
            change(doc["runs"])
            return doc

        cases = [
            # (what, the document, the run named, a part of the rule)
            ("a c = 2 alias", crafted(lambda r: r[c2].update(alias_of=ids[m])), c2, "joins a run at c = 2"),
            ("a missing target", crafted(lambda r: r[a].update(alias_of="s64-c1-nosuch")), a, "names no run of this file"),
            ("a circle", crafted(lambda r: r[m].update(alias_of=ids[a])), min(a, m), "itself an alias"),
            ("its own id", crafted(lambda r: r[a].update(alias_of=ids[a])), a, "the run's own id"),
            ("another computation", crafted(lambda r: r[a]["config"].update(seq=128)), a, "config/seq is 64, not 128"),
        ]
        for what, doc, at, rule in cases:
            with self.subTest(what):
                bad = write_json(os.path.join(self.w, "crafted.json"), doc)
                self.refused(["compare", base, bad], f"crafted.json: /runs/{at}/alias_of", rule)
                os.remove(bad)

    def test_aliases_are_left_out_wherever_they_stand_and_each_run_checked_against_its_own(self):
        # The alias last in one file and in the middle of the other: compare checked each matched
        # run's config at its place among the runs left after the aliases, in the file with the
        # aliases still there, so it held a c = 1 run against a c = 2 one and refused a good pair.
        base = write_json(os.path.join(self.w, "base.json"), self.aliased)
        moved = copy.deepcopy(self.aliased)
        moved["runs"].append(moved["runs"].pop(self.alias))
        new = write_json(os.path.join(self.w, "new.json"), moved)
        p = run("compare", base, new, "--json")
        self.assertIn(p.returncode, (0, 1), p.stderr)
        out = json.loads(p.stdout)
        zigzag = self.aliased["runs"][self.alias]["config"]["id"]
        self.assertEqual(out["aliases"], [zigzag])  # listed, counted once, not compared again
        self.assertEqual(sorted(r["id"] for r in out["runs"]),
                         sorted(r["config"]["id"] for r in self.aliased["runs"] if "alias_of" not in r))

    def test_repeat_of_checks_what_first_compared(self):
        base = write_json(os.path.join(self.w, "base.json"), self.doc)
        other = write_json(os.path.join(self.w, "other.json"), self.doc)
        again = write_json(os.path.join(self.w, "again.json"), self.doc)
        first = os.path.join(self.w, "first.json")
        p = run("compare", base, other, "--json-out", first)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        good = read_json(first)

        def crafted(change):
            doc = copy.deepcopy(good)
            change(doc)
            return write_json(os.path.join(self.w, f"crafted-{len(os.listdir(self.w))}.json"), doc)

        cases = [
            ("an id listed twice", crafted(lambda j: j["runs"].append(copy.deepcopy(j["runs"][0]))), [base, again],
             f"/runs/{len(good['runs'])}/id", "two verdicts"),
            ("another metric", crafted(lambda j: j["metric"].update(name="tflops")), [base, again],
             '/metric/name: value "tflops"', "a repeat confirms the same metric"),
            ("a later major version", crafted(lambda j: j.update(schema_version="1.0.0")), [base, again],
             '/schema_version: value "1.0.0"', "a later 0.x"),
            ("an A/B pair's, repeated by files that are none", crafted(lambda j: j.update(paired=True)), [base, again],
             "/paired: value true", "a repeat measures what FIRST measured"),
            ("the very files FIRST compared", first, [base, other], "/base", "a fresh pair"),
        ]
        for what, first_file, files, field, rule in cases:
            with self.subTest(what):
                self.refused(["compare", *files, "--repeat-of", first_file, "--json-out", os.path.join(self.w, "r.json")],
                             f"--repeat-of: {first_file}: {field}", rule)

    def test_a_profile_reads_numbers_as_the_flags_do(self):
        # docs/cli.md: a flag and the profile field beside it take the same values; `--seq 6.4e1`
        # was 64 where `"seq": 6.4e1` was refused.
        shape = {"cp": 1, "heads": 2, "kv_heads": 1, "head_dim": 8}
        good = write_json(os.path.join(self.w, "p.json"), {"sweep": {**shape, "seq": 6.4e1, "repeats": 2.0}})
        for argv in (["run", good, "--list"], ["run", "--seq", "6.4e1", "--cp", "1", "--heads", "2", "--kv-heads", "1",
                                               "--head-dim", "8", "--repeats", "2.0", "--list"]):
            with self.subTest(argv=argv):
                p = run(*argv, cwd=self.w)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("s64-c1-contiguous-ring-h2x1-d8", p.stdout)
        bad = write_json(os.path.join(self.w, "bad.json"), {"sweep": {**shape, "seq": 64, "repeats": 1.5}})
        self.refused(["run", bad, "--list"], "bad.json: /sweep/repeats")
        self.refused(["run", "--seq", "64", "--repeats", "1.5", "--list"], "--repeats")

    def test_the_seq_axis_stops_expanding_at_the_sweeps_cap(self):
        # 10,000 ranges of 4,096 values: 41 million values were built (415 MB for a longer list)
        # before the product of the axes was counted.
        profile = write_json(os.path.join(self.w, "many.json"),
                             {"sweep": {"seq": ["1:4096:+1"] * 10000, "cp": 1, "heads": 1, "kv_heads": 1,
                                        "head_dim": 1}})
        rc, stdout, stderr, peak, wall = run_measured(["run", profile, "--list"])
        self.assertEqual(rc, 2, stderr[-2000:])
        lines = stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, stderr)
        self.assertIn("many.json: /sweep/seq/24", lines[0])
        self.assertIn("at most 100000 configurations", lines[0])
        self.assertLess(peak, 60, "MiB at its peak")  # 0 under a sanitizer, where RSS means nothing

    def test_cli11s_refusals_are_one_line_naming_the_flag_and_the_rule(self):
        base = write_json(os.path.join(self.w, "b.json"), self.doc)
        cases = [
            (["compare", base, base, "extra"], "compare: value extra is invalid: an argument not expected",
             "`compare` takes BASE NEW"),
            (["run", "--seq", "64", "--out", "a", "--out", "b", "--list"], "--out: value given 2 times is invalid",
             "takes 1 value; give it once"),
            (["trend"], "HISTORY: value (none) is invalid", "`trend` needs it"),
            (["run", "--causal", "--no-causal", "--list"], "--causal: value given with --no-causal is invalid",
             "give one of them"),
        ]
        for argv, *parts in cases:
            with self.subTest(argv=argv):
                line = self.refused(argv, *parts)
                for words in ("At Most", "The following argument", "required but received"):
                    self.assertNotIn(words, line)


if __name__ == "__main__":
    unittest.main()
