"""A sweep killed with SIGKILL mid-run leaves every completed configuration in results.jsonl."""
import json
import os
import signal
import subprocess
import time
import unittest

from ringbench_cli import BIN, tempdir


class KillKeepsResults(unittest.TestCase):
    def test_sigkill_mid_sweep(self):
        with tempdir() as d:
            out = os.path.join(d, "res")
            jsonl = os.path.join(out, "results.jsonl")
            # Many small configurations, each long enough that the kill lands mid-sweep.
            proc = subprocess.Popen([BIN, "run", "--seq", "512", "--cp", "1,2,4,8", "--split",
                                     "contiguous,zigzag,striped", "--variant", "ring,allgather", "--heads", "4",
                                     "--kv-heads", "2", "--head-dim", "32", "--repeats", "20", "--out", out],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 300
            done = 0
            while time.time() < deadline and proc.poll() is None:
                if os.path.exists(jsonl):
                    with open(jsonl) as f:
                        done = sum(1 for _ in f)
                if done >= 3:
                    break
                time.sleep(0.05)
            self.assertIsNone(proc.poll(), "the sweep finished before it could be killed")
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            stderr = proc.stderr.read()
            finished = [l for l in stderr.splitlines() if "] ok " in l]
            with open(jsonl) as f:
                lines = [json.loads(l) for l in f]  # every line is whole: a torn line would not parse
            self.assertGreaterEqual(len(lines), 3)
            self.assertLess(len(lines), 48)
            # Everything reported finished on stderr is in the file.
            self.assertGreaterEqual(len(lines), len(finished))
            for r in lines:
                self.assertEqual(r["status"], "ok")
                self.assertTrue(r["correctness"]["passed"])
            self.assertFalse(os.path.exists(os.path.join(out, "results.json")))


if __name__ == "__main__":
    unittest.main()
