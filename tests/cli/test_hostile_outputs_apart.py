"""One rule for outputs against inputs, in every command that writes (common/output_file.hpp,
check_outputs_apart; docs/cli.md "Output files"): an output may not be an input, another output, or a
file inside an input folder, and it is refused before anything runs. Each row exits 2 with one stderr
line naming the output's flag, and leaves every file under the test's folder as it was: no input
replaced, no output written, nothing measured."""
import os
import shutil
import stat
import time
import unittest

from ringbench_test import TINY, folder_state, read_json, run, tempdir, write_json

PROFILE = {"name": "tiny", "sweep": {"seq": 64, "cp": [1, 2], "heads": 2, "kv_heads": 1, "head_dim": 8, "repeats": 1}}
ACCEPT = {**PROFILE, "checks": [{"name": "correctness", "metric": "correctness"}]}


class OutputsApart(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        d = cls.d = cls.tmp.name
        p = run("run", *TINY, "--out", os.path.join(d, "base"))
        assert p.returncode == 0, p.stderr
        cls.res = os.path.join(d, "base", "results.json")
        os.makedirs(os.path.join(d, "hist"))
        shutil.copy(cls.res, os.path.join(d, "hist", "2026-11-01.json"))
        for host in ("a", "b"):
            os.makedirs(os.path.join(d, "nodes", host))
            doc = read_json(cls.res)
            doc["host"]["hostname"] = host
            write_json(os.path.join(d, "nodes", host, "results.json"), doc)
        write_json(os.path.join(d, "accept.json"), ACCEPT)
        # A profile where `run --out O` would write O/results.json over it.
        os.makedirs(os.path.join(d, "o2"))
        write_json(os.path.join(d, "o2", "results.json"), PROFILE)
        # A base build for `ab` that is really one of its logs-to-be.
        os.makedirs(os.path.join(d, "ab"))
        base = os.path.join(d, "ab", "base.log")
        with open(base, "w") as f:
            f.write("#!/bin/sh\necho ringbench 0.0.0\n")
        os.chmod(base, 0o755)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def refused(self, argv, flag, words=()):
        before = folder_state(self.d)
        start = time.monotonic()
        p = run(*argv, cwd=self.d)
        self.assertEqual(p.returncode, 2, f"{argv}: {p.stdout}{p.stderr}")
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(flag, lines[0])
        for w in words:
            self.assertIn(w, lines[0])
        self.assertEqual(folder_state(self.d), before, f"{argv} changed a file")
        return time.monotonic() - start

    def test_every_command_refuses_an_output_that_is_an_input_another_output_or_inside_an_input_folder(self):
        d = self.d
        node_a = os.path.join("nodes", "a", "results.json")
        cases = [
            # fleet: onto a node's results, into a node's folder, onto each other
            (["fleet", "nodes", "--json-out", node_a], "--json-out", ["input folder"]),
            (["fleet", "nodes", "--html", os.path.join("nodes", "a", "fleet.html")], "--html", ["input folder"]),
            (["fleet", "nodes", "--junit", "f.xml", "--html", "f.xml"], "--html", ["--junit"]),
            (["fleet", "nodes", "--junit", "f.json", "--json-out", "f.json"], "--json-out", ["--junit"]),
            (["fleet", node_a, os.path.join("nodes", "b", "results.json"), "--junit", node_a], "--junit", ["input"]),
            # trend and report --history: not a night, not a new file among the nights
            (["trend", "hist", "-o", os.path.join("hist", "2026-11-01.json")], "--out", ["input folder"]),
            (["trend", "hist", "-o", os.path.join("hist", "trend.html")], "--out", ["input folder"]),
            (["trend", "hist", "-o", os.path.join(d, "hist", "..", "hist", "t.html")], "--out", ["input folder"]),
            (["report", self.res, "--history", "hist", "-o", os.path.join("hist", "r.html")], "--out",
             ["input folder"]),
            # accept: the JUnit is not the sweep's results
            (["accept", "accept.json", "--out", "acc", "--junit", os.path.join("acc", "results.json")], "--junit",
             ["--out"]),
            (["accept", "accept.json", "--out", "acc", "--junit", os.path.join("acc", "report.html")], "--junit",
             ["--out"]),
            # run: the dump folder is no output file, and no output replaces the profile
            (["run", *TINY, "--out", "o", "--dump", os.path.join("o", "results.json")], "--dump", ["--out"]),
            (["run", os.path.join("o2", "results.json"), "--out", "o2"], "--out", ["profile"]),
            # ab: its logs and each build's files are not the base build
            (["ab", os.path.join("ab", "base.log"), "--out", "ab", *TINY], "--out", ["BASE_BIN"]),
        ]
        for argv, flag, words in cases:
            with self.subTest(" ".join(argv)):
                self.refused(argv, flag, words)

    def test_run_refuses_its_dump_folder_before_it_measures(self):
        # Found only after the sweep had measured: a long sweep is refused as fast as a tiny one.
        seconds = self.refused(["run", "--seq", "2048", "--cp", "1,2,4", "--repeats", "10", "--rounds", "3",
                                "--out", "long", "--dump", os.path.join("long", "results.jsonl")], "--dump")
        self.assertLess(seconds, 10)
        self.assertFalse(os.path.exists(os.path.join(self.d, "long")))

    def test_outputs_apart_from_the_inputs_are_written(self):
        # The rule refuses only what it must: outputs beside the inputs, a dump folder beside --out.
        with tempdir() as t:
            p = run("fleet", "nodes", "--json-out", os.path.join(t, "f.json"), "--junit", os.path.join(t, "f.xml"),
                    "--html", os.path.join(t, "f.html"), cwd=self.d)
            self.assertIn(p.returncode, (0, 1), p.stderr)
            for name in ("f.json", "f.xml", "f.html"):
                self.assertTrue(os.path.isfile(os.path.join(t, name)), name)
            p = run("trend", os.path.join(self.d, "hist"), "-o", os.path.join(t, "trend.html"))
            self.assertEqual(p.returncode, 0, p.stderr)
            p = run("run", *TINY, "--out", os.path.join(t, "o"), "--dump", os.path.join(t, "o"))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(stat.S_ISREG(os.stat(os.path.join(t, "o", "results.json")).st_mode))


if __name__ == "__main__":
    unittest.main()
