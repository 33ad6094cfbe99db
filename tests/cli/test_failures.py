"""Failure isolation: a configuration that fails is recorded with its reason and the sweep goes on;
a fatal error or a signal stops the sweep with everything measured so far written."""
import json
import os
import signal
import subprocess
import time
import unittest

import jsonschema

from ringbench_test import SCHEMA, read_json, read_jsonl, run, start_and_wait_for_lines, tempdir

SMALL = ["--seq", "128", "--cp", "1,2,4", "--split", "zigzag", "--heads", "2", "--kv-heads", "1",
         "--head-dim", "16", "--repeats", "2"]


class Failures(unittest.TestCase):
    def sweep(self, *extra):
        with tempdir() as d:
            out = os.path.join(d, "res")
            p = run("run", *SMALL, *extra, "--out", out)
            return p, read_json(os.path.join(out, "results.json")), read_jsonl(os.path.join(out, "results.jsonl"))

    def assert_isolated(self, fault, reason_part, failed_lines=1):
        p, doc, lines = self.sweep("--inject-fault", fault, "--timeout", "5")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual([r["status"] for r in doc["runs"]], ["ok", "failed", "ok"])
        self.assertIn(reason_part, doc["runs"][1]["reason"])
        # Two repeats are two rounds, each appending its configuration's record so far; a
        # configuration that throws in its first round has that one line.
        per_id = {}
        for line in lines:
            per_id.setdefault(line["config"]["id"], []).append(line)
        self.assertEqual([len(v) for v in per_id.values()], [2, failed_lines, 2])
        self.assertEqual(doc["runs"], [v[-1] for v in per_id.values()])
        self.assertIsNone(doc["stopped"])
        return doc

    def test_error_in_a_pass(self):
        self.assert_isolated("throw@1", "injected fault")

    def test_correctness_failure_keeps_the_timing(self):
        doc = self.assert_isolated("corrupt@1", "correctness: 1 of", failed_lines=2)
        bad = doc["runs"][1]
        self.assertEqual(bad["correctness"]["over_tolerance"], 1)
        self.assertFalse(bad["correctness"]["passed"])
        self.assertEqual(len(bad["timing"]["samples_ms"]), 2)  # what was measured is kept

    def test_hang_is_ended_by_the_timeout(self):
        t0 = time.time()
        self.assert_isolated("hang@1", "timeout")
        self.assertLess(time.time() - t0, 60)

    def test_fatal_error_stops_the_sweep_and_writes_what_exists(self):
        p, doc, lines = self.sweep("--inject-fault", "fatal@1")
        self.assertEqual(p.returncode, 1)
        self.assertEqual([r["status"] for r in doc["runs"]], ["ok", "failed", "skipped"])
        self.assertIn("fatal", doc["runs"][1]["reason"])
        self.assertIn("not run", doc["runs"][2]["reason"])
        self.assertIn("fatal error", doc["stopped"])

    def test_configuration_over_the_memory_limit_is_skipped(self):
        p, doc, _ = self.sweep("--memory-limit", "0.00001")
        self.assertEqual(p.returncode, 0)
        self.assertTrue(all(r["status"] == "skipped" for r in doc["runs"]))
        self.assertIn("GiB of host memory", doc["runs"][0]["reason"])

    def test_bad_fault_spec_is_bad_input(self):
        with tempdir() as d:
            p = run("run", *SMALL, "--inject-fault", "explode@1", "--out", d)
            self.assertEqual(p.returncode, 2)
            self.assertIn("--inject-fault", p.stderr)

    def interrupt(self, sig):
        with tempdir() as d:
            out = os.path.join(d, "res")
            proc = start_and_wait_for_lines(out, 2, stdout=subprocess.PIPE)
            proc.send_signal(sig)
            stdout, _ = proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, 128 + sig)
            doc = read_json(os.path.join(out, "results.json"))
            self.assertIn("interrupted", doc["stopped"])
            self.assertEqual(len(doc["runs"]), 4 * 3 * 2)  # every planned configuration has a line
            statuses = [r["status"] for r in doc["runs"]]
            self.assertGreaterEqual(statuses.count("ok"), 2)
            self.assertGreater(statuses.count("skipped"), 0)
            # A configuration that had run rounds keeps them, and says how many of how many.
            for r in doc["runs"]:
                if r["status"] == "ok":
                    self.assertLessEqual(r["timing"]["rounds"], r["timing"]["rounds_planned"])
                    self.assertEqual(len(r["timing"]["samples_ms"]), r["timing"]["count"])
            self.assertIn("results:", stdout)

    def test_sigint_writes_results_json_from_what_exists(self):
        self.interrupt(signal.SIGINT)

    def test_sigterm_writes_results_json_from_what_exists(self):
        self.interrupt(signal.SIGTERM)


class Throttled(unittest.TestCase):
    """Samples whose SM clock fell under --throttle-threshold leave the statistics (NVBench's rule).
    The CPU reads no clock, so `--inject-fault throttle@N[/R]` gives configuration N a nominal
    1000 MHz clock that reads 500 MHz in the rounds it hits: the filter's whole path, on any node."""

    def sweep(self, *extra):
        with tempdir() as d:
            out = os.path.join(d, "res")
            t0 = time.monotonic()
            p = run("run", *SMALL[:-2], "--rounds", "3", *extra, "--out", out)  # SMALL ends with --repeats
            took = time.monotonic() - t0
            doc = read_json(os.path.join(out, "results.json"))
            with open(SCHEMA) as f:
                jsonschema.Draft202012Validator(json.load(f)).validate(doc)
            return p, doc, took

    def test_dropped_samples_leave_the_statistics_and_stay_in_the_record(self):
        p, doc, _ = self.sweep("--repeats", "6", "--inject-fault", "throttle@1/1", "--throttle-recovery", "0")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([r["status"] for r in doc["runs"]], ["ok", "ok", "ok"])
        hit = doc["runs"][1]
        clock = hit["sm_clock"]
        self.assertEqual(clock["taken"], 6)
        self.assertEqual(clock["dropped"], [0, 1])  # round 1's two samples
        self.assertEqual(clock["samples_mhz"], [500.0, 500.0, 1000.0, 1000.0, 1000.0, 1000.0])
        self.assertEqual(clock["threshold_mhz"], 750.0)
        t = hit["timing"]
        self.assertEqual(t["count"], 4)
        self.assertEqual(t["round_counts"], [0, 2, 2])
        self.assertEqual(t["samples_ms"], clock["samples_ms"][2:])
        kept = sorted(t["samples_ms"])
        self.assertAlmostEqual(t["median_ms"], (kept[1] + kept[2]) / 2)
        # The CPU backend reads no clock of its own: no sm_clock where nothing was injected.
        self.assertNotIn("sm_clock", doc["runs"][0])
        self.assertEqual(doc["runs"][0]["timing"]["round_counts"], [2, 2, 2])

    def test_more_than_half_dropped_fails_with_the_reason_and_keeps_the_samples(self):
        p, doc, _ = self.sweep("--repeats", "3", "--inject-fault", "throttle@1", "--throttle-recovery", "0")
        self.assertEqual(p.returncode, 1)
        self.assertEqual([r["status"] for r in doc["runs"]], ["ok", "failed", "ok"])
        bad = doc["runs"][1]
        self.assertEqual(bad["reason"], "throttled: 3 of 3 samples ran under 750 MHz, 75% of the nominal 1000 MHz")
        self.assertIsNone(bad["timing"])
        self.assertEqual(len(bad["sm_clock"]["samples_ms"]), 3)  # what was measured is kept
        self.assertTrue(bad["correctness"]["passed"])
        self.assertIn("throttled: 3 of 3", p.stdout + p.stderr)

    def test_the_next_sample_waits_for_the_clock_to_recover(self):
        _, fast, took_fast = self.sweep("--repeats", "6", "--inject-fault", "throttle@1/1", "--throttle-recovery", "0")
        _, slow, took_slow = self.sweep("--repeats", "6", "--inject-fault", "throttle@1/1",
                                        "--throttle-recovery", "2000")
        self.assertEqual(slow["runs"][1]["sm_clock"]["recovery_ms"], 2000)
        # Two dropped samples, each followed by 2 s: about 4 s more than the same sweep without the
        # wait (the sweep itself takes a second or two, so its noise cannot make up the difference).
        self.assertGreaterEqual(took_slow - took_fast, 2.5, (took_fast, took_slow))
        self.assertEqual(fast["runs"][1]["sm_clock"]["dropped"], slow["runs"][1]["sm_clock"]["dropped"])

    def test_a_zero_threshold_drops_nothing(self):
        p, doc, _ = self.sweep("--repeats", "3", "--inject-fault", "throttle@1", "--throttle-threshold", "0")
        self.assertEqual(p.returncode, 0, p.stderr)
        clock = doc["runs"][1]["sm_clock"]
        self.assertIsNone(clock["threshold_mhz"])
        self.assertEqual(clock["dropped"], [])
        self.assertEqual(doc["runs"][1]["timing"]["count"], 3)

    def test_bad_throttle_flags_are_bad_input(self):
        for flag, value, rule in [("--throttle-threshold", "120", "[0, 100]"),
                                  ("--throttle-threshold", "-1", "[0, 100]"),
                                  ("--throttle-recovery", "-5", "[0, 60000] ms"),
                                  ("--throttle-recovery", "inf", "[0, 60000] ms")]:
            with tempdir() as d:
                p = run("run", *SMALL, f"{flag}={value}", "--out", os.path.join(d, "res"))
                self.assertEqual(p.returncode, 2, (flag, value, p.stderr))
                self.assertIn(flag, p.stderr)
                self.assertIn(rule, p.stderr)
                self.assertFalse(os.path.exists(os.path.join(d, "res")))


if __name__ == "__main__":
    unittest.main()
