"""A sweep killed with SIGKILL mid-run leaves every completed round in results.jsonl."""
import json
import os
import signal
import unittest

from ringbench_test import console_rows, start_and_wait_for_lines, tempdir


class KillKeepsResults(unittest.TestCase):
    def test_sigkill_mid_sweep(self):
        with tempdir() as d:
            out = os.path.join(d, "res")
            jsonl = os.path.join(out, "results.jsonl")
            # As on a terminal: the live row shows the sweep-wide counter after every round.
            proc = start_and_wait_for_lines(out, 3, env=dict(os.environ, RINGBENCH_TTY="1"))
            self.assertIsNone(proc.poll(), "the sweep finished before it could be killed")
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            stderr = proc.stderr.read()
            with open(jsonl) as f:
                lines = [json.loads(l) for l in f]  # every line is whole: a torn line would not parse
            self.assertGreaterEqual(len(lines), 3)
            # Rounds are interleaved and each appends its configuration's record so far: the sweep
            # of 24 configurations was killed before every configuration had its last round.
            last = {}
            for r in lines:
                last[r["config"]["id"]] = r
            self.assertTrue(any(r["timing"]["rounds"] < r["timing"]["rounds_planned"] for r in last.values()))
            # Every round the counter reported on stderr is in the file.
            rows = console_rows(stderr)
            self.assertTrue(rows, stderr)
            self.assertGreaterEqual(len(lines), max(r["k"] for r in rows))
            for r in lines:
                self.assertEqual(r["status"], "ok")
                self.assertTrue(r["correctness"]["passed"])
                self.assertEqual(len(r["timing"]["samples_ms"]), r["timing"]["count"])
            self.assertFalse(os.path.exists(os.path.join(out, "results.json")))


if __name__ == "__main__":
    unittest.main()
