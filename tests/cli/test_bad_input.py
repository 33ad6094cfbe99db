"""Bad input: one clear line on stderr naming the field, the value and the rule; exit 2; nothing
written as if it had succeeded."""
import json
import os
import unittest

from ringbench_test import run, tempdir

BASE = ["--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--repeats", "1"]


class BadInput(unittest.TestCase):
    def check(self, args, *must_mention, profile=None):
        with tempdir() as d:
            out = os.path.join(d, "res")
            argv = ["run"]
            if profile is not None:
                path = os.path.join(d, "profile.json")
                with open(path, "w") as f:
                    f.write(profile if isinstance(profile, str) else json.dumps(profile))
                argv.append(path)
            p = run(*argv, *args, "--out", out)
            self.assertEqual(p.returncode, 2, f"{args}: rc={p.returncode}\n{p.stderr}")
            err = p.stderr.strip()
            self.assertTrue(err, "no message on stderr")
            self.assertEqual(len(err.splitlines()), 1, err)
            for word in must_mention:
                self.assertIn(word, err)
            self.assertFalse(os.path.exists(os.path.join(out, "results.json")), "results.json written")
            self.assertFalse(os.path.exists(os.path.join(out, "results.jsonl")), "results.jsonl written")

    def test_seq_not_divisible_for_zigzag(self):
        self.check(["--seq", "100", "--cp", "3", "--split", "zigzag", *BASE], "seq", "100", "S % (2c) == 0",
                   "nearest valid S is 102")

    def test_seq_not_divisible_for_contiguous(self):
        self.check(["--seq", "10", "--cp", "4", "--split", "contiguous", *BASE], "S % c == 0", "nearest valid S")

    def test_more_ranks_than_tokens(self):
        self.check(["--seq", "4", "--cp", "8", "--split", "striped", *BASE], "cp", "8", "must not exceed S")

    def test_heads_not_grouping(self):
        self.check(["--seq", "64", "--cp", "2", "--heads", "6", "--kv-heads", "4", "--head-dim", "8"],
                   "heads", "6", "multiple of Hkv")

    def test_unknown_scheme(self):
        self.check(["--seq", "64", "--split", "diagonal", *BASE], "--split", "diagonal", "contiguous, zigzag, striped")

    def test_unknown_variant(self):
        self.check(["--seq", "64", "--variant", "tree", *BASE], "--variant", "tree", "ring, allgather")

    def test_zero_seq(self):
        self.check(["--seq", "0", *BASE], "seq", "positive")

    def test_unreadable_profile(self):
        with tempdir() as d:
            path = os.path.join(d, "missing.json")
            p = run("run", path, "--out", os.path.join(d, "res"))
            self.assertEqual(p.returncode, 2)
            self.assertIn("missing.json", p.stderr)

    def test_malformed_profile(self):
        self.check([], "profile.json", "valid JSON", profile='{"sweep": {"seq": [64,]}')

    def test_profile_bad_field_names_json_path(self):
        self.check([], "/sweep/seq/1", "-5", "positive", profile={"sweep": {"seq": [64, -5]}})

    def test_profile_wrong_type_names_json_path(self):
        self.check([], "/sweep/cp", "must be a positive integer", profile={"sweep": {"cp": "four"}})

    def test_profile_unknown_axis(self):
        self.check([], "/sweep/sequence", "unknown axis", profile={"sweep": {"sequence": [64]}})

    def test_profile_unknown_split_names_json_path(self):
        self.check([], "/sweep/split/0", "'zig'", profile={"sweep": {"split": ["zig"]}})

    def test_bfloat16_on_cpu(self):
        self.check(["--seq", "64", "--dtype", "bfloat16", *BASE], "dtype", "bfloat16")

    def test_unknown_subcommand_and_flag(self):
        self.assertEqual(run("fly").returncode, 2)
        self.assertEqual(run("run", "--sequence", "64").returncode, 2)


if __name__ == "__main__":
    unittest.main()
