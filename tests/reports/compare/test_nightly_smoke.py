"""The nightly job on the shipped smoke profile (the one it runs on a CPU) can fire: its repeats pass
the job's power check, and a planted 50% slowdown of tonight against the baseline is flagged as
SLOWER, not NOISY or UNDERPOWERED, and exits 1. The profile runs once (the first night); the second
night's run is that one with every sample 50% slower, put in place by a stand-in for `ringbench
run`, so the test costs one smoke sweep, and that at half the shipped sequence lengths (512 and 768
for 1024 and 1536, a quarter of the work: the power check reads the repeats and rounds, which stay
the profile's, and passes of 20-60 ms still stand well clear of a scheduler's slice; the shipped
lengths cost CI's serial stage two minutes, issue 41). 50%, not 20%: between nights measured apart
the samples spread as far as the machine's own speed moves, which on this VM reached 1.8x within one
sweep; there X against 1.2 X is rightly NOISY everywhere (docs/nightly.md). Heavy: left out of the
sanitizer stage (scripts/test.sh)."""
import json
import os
import subprocess
import unittest

from ringbench_test import BIN, SOURCE_DIR, read_json, scale_timing, tempdir, write_json

NIGHTLY = os.path.join(SOURCE_DIR, "scripts", "nightly.sh")
SMOKE = os.path.join(SOURCE_DIR, "profiles", "smoke.json")

# `ringbench run ... --out DIR ...` copies $RB_PLANT into DIR; every other command is the real one.
STAND_IN = """#!/usr/bin/env bash
if [ "$1" = run ] && [ -n "${RB_PLANT:-}" ]; then
  while [ $# -gt 0 ]; do [ "$1" = --out ] && out="$2"; shift; done
  mkdir -p "$out" && cp "$RB_PLANT/results.json" "$out/results.json" && exit 0
fi
exec "$RB_REAL" "$@"
"""


class NightlySmoke(unittest.TestCase):
    def night_pair(self, d, smoke):
        """The two nights in folder d: the profile's run, then the planted one. Returns the second
        night's process and its verdicts."""
        stand_in = os.path.join(d, "ringbench")
        with open(stand_in, "w") as f:
            f.write(STAND_IN)
        os.chmod(stand_in, 0o755)
        env = dict(os.environ, RINGBENCH=stand_in, RB_REAL=BIN)
        hist, base = os.path.join(d, "history"), os.path.join(d, "baseline.json")
        common = ["bash", NIGHTLY, "-p", smoke, "-H", hist, "-b", base]
        p = subprocess.run([*common, "-d", "2024-05-01", "-o", os.path.join(d, "n1")], capture_output=True,
                           text=True, env=env, timeout=1200)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr[-3000:])
        plant = os.path.join(d, "plant")
        os.makedirs(plant)
        write_json(os.path.join(plant, "results.json"), scale_timing(read_json(base), 1.50))
        p = subprocess.run([*common, "-d", "2024-05-02", "-o", os.path.join(d, "n2")], capture_output=True,
                           text=True, env=dict(env, RB_PLANT=plant), timeout=600)
        return p, [r["verdict"] for r in read_json(os.path.join(d, "n2", "compare.json"))["runs"]]

    def test_a_planted_fifty_percent_on_the_smoke_profile_is_flagged(self):
        shipped = read_json(SMOKE)
        self.assertGreaterEqual(shipped["sweep"]["repeats"], 8)
        self.assertEqual(shipped["sweep"]["seq"], [1024, 1536])  # what the quarter below is of
        # A first night whose own rounds spread past 50% everywhere (this VM once did, idle, in CI's
        # clean-clone run of 2026-12-07) makes every verdict rightly NOISY: the machine, not the job,
        # could not judge that night. Such a pair is run once more, as a second night would be; a
        # job that cannot fire fails both.
        for attempt in range(2):
            with tempdir() as d:
                smoke = write_json(os.path.join(d, "smoke.json"),
                                   {**shipped, "sweep": {**shipped["sweep"], "seq": [512, 768]}})
                p, verdicts = self.night_pair(d, smoke)
            if attempt == 0 and p.returncode == 0 and verdicts and all(v == "NOISY" for v in verdicts):
                print(f"smoke nightly: every one of {len(verdicts)} verdicts NOISY (the machine's spread); once more")
                continue
            break
        self.assertEqual(p.returncode, 1, p.stdout[-3000:] + p.stderr[-3000:])
        self.assertIn("REGRESSION", p.stderr)
        self.assertNotIn("UNDERPOWERED", verdicts)  # 8 repeats can always reach alpha
        self.assertNotIn("FASTER", verdicts)
        self.assertNotIn("SAME", verdicts)
        # Configurations whose own samples spread by more than the planted step are rightly NOISY;
        # the rest are SLOWER, and one is enough to fail the night.
        self.assertGreaterEqual(verdicts.count("SLOWER"), 1, verdicts)
        print(f"smoke nightly: planted +50% flagged SLOWER in {verdicts.count('SLOWER')} of {len(verdicts)}")

if __name__ == "__main__":
    unittest.main(verbosity=2)
