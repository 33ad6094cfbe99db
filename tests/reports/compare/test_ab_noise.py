"""The nightly gate's A/A promise, measured: the same build as A and as B, paired round by round by
`ringbench ab`, with a busy loop on one core beside some of the pairs, gives no SLOWER and no
FASTER over 40 configuration comparisons (5 pairs of 8 configurations), at the level the class
comment gives. Before pairing and the
error-rate control, an A/A run under load gave 3 SLOWER on identical code; with pairing but the
samples tested as independent, CI's A/A pair gave a SLOWER +90% (docs/compare.md). The
planted half: the new build only made four times as slow in a quarter of the configurations is found
(the +15% experiment of docs/compare.md needs a quiet machine and more tries than CI has).
Like the other timing tests it runs alone (RUN_SERIAL) and scripts/test.sh leaves it out of the
sanitizer stage."""
import json
import os
import subprocess
import sys
import time
import unittest

from ringbench_test import BIN, run, tempdir

# 2 S x 2 c x 2 splits = 8 configurations (c = 1's two splits both measured, --c1-all, so that each
# is a comparison of its own); 12 rounds of one sample a side, the smoke profile's
# layout: the pair is tested round by round, and over 8 configurations that takes 10 rounds
# (docs/profiles.md).
SHAPE = ["--seq", "256,512", "--cp", "1,2", "--split", "zigzag,contiguous", "--variant", "ring", "--heads", "4",
         "--kv-heads", "2", "--head-dim", "32", "--dtype", "float32", "--repeats", "12", "--rounds", "12",
         "--warmup", "1", "--require-power", "0.01", "--c1-all"]
CONFIGS = 8
PAIRS = 5


def busy_loop(seconds):
    """One core kept busy, as a neighbour on a shared machine."""
    return subprocess.Popen([sys.executable, "-c", f"import time\nend = time.time() + {seconds}\n"
                             "while time.time() < end:\n    pass\n"])


def compare(out, *extra):
    c = run("compare", os.path.join(out, "base", "results.json"), os.path.join(out, "new", "results.json"), "--json",
            *extra)
    if c.returncode not in (0, 1):
        raise AssertionError(c.stdout + c.stderr)
    return json.loads(c.stdout)


def pair(out, *extra, alpha="0.05", only=None, repeat_of=None):
    p = run("ab", BIN, *SHAPE, *extra, *(["--only", ",".join(only)] if only else []), "--out", out, timeout=900)
    if p.returncode != 0:
        raise AssertionError(p.stdout + p.stderr)
    return compare(out, "--alpha", alpha, *(["--repeat-of", repeat_of] if repeat_of else []))


class AbNoise(unittest.TestCase):
    # At the nightly's alpha of 0.05 a valid test calls an A/A compare changed in up to 5% of pairs,
    # and a 2-core machine under load moves whole turns by 2x, past the threshold; five such pairs
    # would fail CI in up to a fifth of its runs by design. So the pairs here are judged at 0.01
    # (false-discovery rate over the 8 configurations), and the test asserts what the nightly
    # promises: a SLOWER fails a night only when a fresh pair of it is SLOWER again, which identical
    # code never is here, and at most one configuration of the 40 is called changed at all.
    def test_an_a_a_pair_under_load_gives_no_verdict(self):
        with tempdir() as d:
            verdicts, regressions = [], []
            for k in range(PAIRS):
                loop = busy_loop(300) if k % 2 == 1 else None  # beside pairs 2 and 4
                try:
                    out = os.path.join(d, f"aa{k}")
                    cmp = pair(out, alpha="0.01")
                    slower = [r["id"] for r in cmp["runs"] if r["verdict"] == "SLOWER"]
                    if slower:  # as scripts/nightly.sh: the SLOWER ones again, as a fresh pair
                        with open(os.path.join(d, f"first{k}.json"), "w") as f:
                            json.dump(cmp, f)
                        again = pair(os.path.join(d, f"again{k}"), alpha="0.01", only=slower,
                                     repeat_of=os.path.join(d, f"first{k}.json"))
                        regressions += [(k, r["id"], r["change"]) for r in again["runs"] if r["regression"]]
                finally:
                    if loop:
                        loop.kill()
                        loop.wait()
                self.assertTrue(cmp["paired"], "ab's two files are compared as a pair")
                self.assertEqual(len(cmp["runs"]), CONFIGS)
                verdicts += [(k, r["id"], r["verdict"], r["p_value"], r["change"], r["note"]) for r in cmp["runs"]]
            self.assertGreaterEqual(len(verdicts), 40)
            self.assertEqual(regressions, [], "identical code failed the gate: SLOWER in a pair and in its repeat")
            called = [v for v in verdicts if v[2] in ("SLOWER", "FASTER")]
            self.assertLessEqual(len(called), 1, "identical code, measured side by side, was called changed")
            self.assertFalse([v for v in verdicts if v[2] == "UNDERPOWERED"], "the layout can decide")

    def test_a_planted_slowdown_in_the_new_build_is_found(self):
        # Judged at 0.01 as the A/A pairs are: a four-times slowdown in all 12 rounds gives the
        # smallest p, 2/2^12, far below the level, while an unplanted configuration that one process
        # ran a few percent slow for its whole life does not pass it as easily. On a loaded CI machine,
        # judged at 0.05, one did: s512-c1-contiguous SLOWER +14% at p = 0.0068 (level 0.019 after the
        # two true discoveries). The gate's promise is the repeat's: an unplanted SLOWER is measured
        # again as a fresh pair, as scripts/nightly.sh does, and may not be SLOWER there too.
        with tempdir() as d:
            cmp = pair(os.path.join(d, "planted"), "--inject-fault-new", "slow:300@0,4", alpha="0.01")
            by_index = {i: r for i, r in enumerate(cmp["runs"])}
            for i in (0, 4):
                self.assertEqual(by_index[i]["verdict"], "SLOWER", by_index[i])
            others = [r for i, r in by_index.items() if i not in (0, 4)]
            slower = [r["id"] for r in others if r["verdict"] == "SLOWER"]
            if slower:
                first = os.path.join(d, "first.json")
                with open(first, "w") as f:
                    json.dump(cmp, f)
                again = pair(os.path.join(d, "again"), alpha="0.01", only=slower, repeat_of=first)
                confirmed = [r for r in again["runs"] if r["regression"]]
                self.assertFalse(confirmed, "an unplanted configuration was SLOWER in a pair and in its repeat")

if __name__ == "__main__":
    unittest.main()
