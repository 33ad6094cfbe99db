"""Rounds across a sweep: round 1 of every configuration, then round 2, ... (or back to back with
--no-interleave); after each round the configuration's record so far is a line of results.jsonl,
and results.json keeps the last line of each. The median pass whose timeline and metrics the record
carries is found exactly, though passes that can no longer be the median are dropped between rounds."""
import os
import unittest

from ringbench_test import console_rows, read_json, read_jsonl, run, tempdir

# Two configurations, 7 repeats over 3 rounds: 3, 2 and 2 passes, so every record so far holds an
# odd number of samples (3, 5, 7) and its median is one of them.
TWO = ["--seq", "128", "--cp", "1,2", "--split", "zigzag", "--heads", "2", "--kv-heads", "1", "--head-dim", "16",
       "--repeats", "7", "--rounds", "3", "--warmup", "0"]


def sweep(d, *extra):
    out = os.path.join(d, "res")
    p = run("run", *TWO, *extra, "--out", out)
    return p, read_json(os.path.join(out, "results.json")), read_jsonl(os.path.join(out, "results.jsonl"))


class Rounds(unittest.TestCase):
    def test_interleaved_by_default(self):
        with tempdir() as d:
            p, doc, lines = sweep(d)
            self.assertEqual(p.returncode, 0, p.stderr)
            ids = [r["config"]["id"] for r in doc["runs"]]
            self.assertEqual(len(set(ids)), 2)
            self.assertEqual([l["config"]["id"] for l in lines], ids * 3)
            self.assertEqual([l["timing"]["rounds"] for l in lines], [1, 1, 2, 2, 3, 3])
            self.assertEqual([l["timing"]["count"] for l in lines], [3, 3, 5, 5, 7, 7])
            self.assertTrue(all(l["timing"]["interleaved"] and l["timing"]["rounds_planned"] == 3 for l in lines))
            self.assertEqual(doc["runs"], lines[4:])
            # A later line extends the earlier one's samples; the probe is timed before each round
            # and after the last.
            for k in range(2):
                a, b, c = lines[k], lines[k + 2], lines[k + 4]
                self.assertEqual(b["timing"]["samples_ms"][:3], a["timing"]["samples_ms"])
                self.assertEqual(c["timing"]["samples_ms"][:5], b["timing"]["samples_ms"])
                self.assertEqual([len(x["timing"]["machine_probe_ms"]) for x in (a, b, c)], [1, 2, 4])
            # Progress (not a terminal): no line per round, one row per configuration with its verdict.
            self.assertNotIn("] r1/3 ", p.stderr)
            self.assertEqual([r["status"] for r in console_rows(p.stderr)], ["ok", "ok"])

    def test_the_timeline_is_the_median_pass(self):
        with tempdir() as d:
            p, _, lines = sweep(d)
            self.assertEqual(p.returncode, 0, p.stderr)
            for l in lines:
                # Odd counts: the median is a sample, and the record's timeline is that pass.
                self.assertIn(l["timing"]["median_ms"], l["timing"]["samples_ms"])
                self.assertEqual(l["metrics"]["timeline_pass_ms"], l["timing"]["median_ms"])
                self.assertAlmostEqual(l["model"]["measured_pass_ms"], l["timing"]["median_ms"], places=9)

    def test_no_interleave_runs_each_configuration_through(self):
        with tempdir() as d:
            p, doc, lines = sweep(d, "--no-interleave")
            self.assertEqual(p.returncode, 0, p.stderr)
            a, b = [r["config"]["id"] for r in doc["runs"]]
            self.assertEqual([l["config"]["id"] for l in lines], [a, a, a, b, b, b])
            self.assertFalse(doc["runs"][0]["timing"]["interleaved"])
            self.assertEqual(doc["runs"], [lines[2], lines[5]])

    def test_a_later_round_that_fails_keeps_the_earlier_ones(self):
        with tempdir() as d:
            p, doc, lines = sweep(d, "--inject-fault", "throw@1/2")
            self.assertEqual(p.returncode, 1, p.stderr)
            ok, bad = doc["runs"]
            self.assertEqual(ok["status"], "ok")
            self.assertEqual(ok["timing"]["rounds"], 3)
            self.assertEqual(bad["status"], "failed")
            self.assertTrue(bad["reason"].startswith("round 2 of 3: "), bad["reason"])
            self.assertIn("injected fault", bad["reason"])
            self.assertEqual((bad["timing"]["rounds"], bad["timing"]["count"]), (1, 3))
            self.assertTrue(bad["correctness"]["passed"])
            self.assertEqual(len(lines), 3 + 2)  # the failed one stopped after its second line

    def test_a_fatal_error_in_a_later_round_keeps_what_ran(self):
        with tempdir() as d:
            p, doc, _ = sweep(d, "--inject-fault", "fatal@0/2")
            self.assertEqual(p.returncode, 1, p.stderr)
            first, second = doc["runs"]
            self.assertEqual(first["status"], "failed")
            self.assertIn("round 2 of 3: fatal", first["reason"])
            # The other configuration had run its first round: that stays, as ok.
            self.assertEqual(second["status"], "ok")
            self.assertEqual((second["timing"]["rounds"], second["timing"]["rounds_planned"]), (1, 3))
            self.assertIn("fatal error", doc["stopped"])

    def test_a_configuration_listed_twice_runs_once(self):
        with tempdir() as d:
            out = os.path.join(d, "res")
            p = run("run", "--seq", "64,64", "--cp", "2", "--split", "zigzag,zigzag", "--variant", "ring", "--heads", "2", "--kv-heads", "1", "--head-dim", "8",
                    "--repeats", "2", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(len(read_json(os.path.join(out, "results.json"))["runs"]), 1)

    def test_bad_round_in_a_fault_is_bad_input(self):
        with tempdir() as d:
            p = run("run", *TWO, "--inject-fault", "throw@1/0", "--out", d)
            self.assertEqual(p.returncode, 2)
            self.assertIn("--inject-fault", p.stderr)
            self.assertIn("R must be a round >= 1", p.stderr)


class NoiseBasedStopping(unittest.TestCase):
    """--max-noise: rounds of repeats/rounds passes each, interleaved, until the noise target (after
    --rounds rounds and --min-samples samples) or --max-time; the record says why it stopped."""

    def test_a_loose_target_stops_after_the_first_rounds_and_says_so(self):
        with tempdir() as d:
            # A relative standard deviation of 6 positive samples cannot exceed sqrt(5) = 224%.
            p, doc, lines = sweep(d, "--max-noise", "1000", "--min-samples", "6")
            self.assertEqual(p.returncode, 0, p.stderr)
            for r in doc["runs"]:
                t = r["timing"]
                # 7 repeats over 3 rounds: 2 passes a round; 6 samples take the 3 rounds.
                self.assertEqual(t["rounds"], 3, t)
                self.assertEqual(t["count"], 6)
                self.assertEqual(t["rounds_planned"], 3)
                self.assertRegex(t["stopped_by"], r"^noise \d+\.\d\d% <= 1000\.00%$")
                self.assertEqual(t["stopping"], {"max_noise_pct": 1000.0, "min_samples": 6, "max_time_s": 60.0})
            # Still interleaved: round 1 of both, then round 2 of both, ...
            ids = [r["config"]["id"] for r in doc["runs"]]
            self.assertEqual([l["config"]["id"] for l in lines], ids * 3)
            self.assertTrue(all(l["timing"]["rounds_planned"] is None for l in lines[:4]))

    def test_an_unreachable_target_stops_at_the_time_limit(self):
        with tempdir() as d:
            p, doc, _ = sweep(d, "--max-noise", "0.000001", "--max-time", "0.5", "--verbose")
            self.assertEqual(p.returncode, 0, p.stderr)
            for r in doc["runs"]:
                t = r["timing"]
                self.assertTrue(t["stopped_by"].startswith("max-time 0.5 s (noise "), t["stopped_by"])
                self.assertGreaterEqual(t["rounds"], 3)
                self.assertEqual(t["count"], 2 * t["rounds"])  # every round the same size
            # The --verbose round lines count rounds without promising the 1000-round cap.
            round_lines = [l for l in p.stderr.splitlines() if "] r1 " in l]
            self.assertEqual(len(round_lines), len(doc["runs"]), p.stderr)
            self.assertNotRegex(p.stderr, r"r\d+/1000|round \d+/1000")

    def test_fixed_repeats_say_so_too(self):
        with tempdir() as d:
            p, doc, _ = sweep(d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual({r["timing"]["stopped_by"] for r in doc["runs"]}, {"7 repeats over 3 rounds"})
            self.assertNotIn("stopping", doc["runs"][0]["timing"])

    def test_bad_stopping_flags(self):
        with tempdir() as d:
            for args, word in ((["--max-noise", "0"], "--max-noise"), (["--max-noise", "nan"], "--max-noise"),
                               (["--min-samples", "3"], "needs --max-noise"),
                               (["--max-noise", "1", "--min-samples", "1"], "--min-samples"),
                               (["--max-noise", "1", "--max-time", "inf"], "--max-time")):
                p = run("run", *TWO, *args, "--out", os.path.join(d, "o"))
                self.assertEqual(p.returncode, 2, (args, p.stderr))
                self.assertIn(word, p.stderr)

if __name__ == "__main__":
    unittest.main()
