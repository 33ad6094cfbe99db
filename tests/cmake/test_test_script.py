"""scripts/test.sh, the README's test command and CI's: its stages in order, each one's time, and the
budget warning (issue 41): past CI's 20 minutes the last lines name every stage over its share, and
the exit code stays 0 (a warning, not a failure). Run as a dry run, whose stage times the test
plants (RINGBENCH_TEST_FAKE_SECONDS), so nothing is built."""
import os
import re
import subprocess
import unittest

SOURCE = os.environ["RINGBENCH_SOURCE_DIR"]
SCRIPT = os.path.join(SOURCE, "scripts", "test.sh")
STAGES = ["setup", "format", "build (ci)", "tests (ci)", "build (sanitizers: ASan + UBSan)",
          "tests (sanitizers), CPU", "fuzzing"]


def dry_run(fake="", budget=None, *args):
    env = dict(os.environ, RINGBENCH_TEST_FAKE_SECONDS=fake)
    if budget is not None:
        env["RINGBENCH_TEST_BUDGET_S"] = str(budget)
    return subprocess.run(["bash", SCRIPT, "--dry-run", *args], capture_output=True, text=True, timeout=60, env=env)


class TestScript(unittest.TestCase):
    def test_the_stages_run_in_order_and_a_dry_run_runs_nothing(self):
        p = dry_run()
        self.assertEqual(p.returncode, 0, p.stderr)
        started = [l[3:] for l in p.stdout.splitlines() if l.startswith("== ") and not re.search(r": \d+ s$", l)]
        self.assertEqual(started, STAGES)
        self.assertIn("  cmake --preset ci", p.stdout)
        self.assertIn("  bash scripts/fuzz.sh 20", p.stdout)
        self.assertRegex(p.stdout, r"test\.sh: setup \d+ s; .*fuzzing \d+ s; total \d+ s")
        self.assertNotIn("WARNING", p.stdout)

    def test_a_stage_slowed_past_the_budget_is_named_and_the_run_still_passes(self):
        p = dry_run("build (ci)=900;tests (ci)=450")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("== build (ci): 900 s", p.stdout)
        warnings = [l for l in p.stdout.splitlines() if "WARNING" in l]
        self.assertEqual(len(warnings), 3, p.stdout)
        self.assertRegex(warnings[0], r"1350 s is over the budget of 1200 s")
        self.assertRegex(warnings[1], r"over its share: build \(ci\) 900 s \(its share \d+ s\)")
        self.assertRegex(warnings[2], r"over its share: tests \(ci\) 450 s \(its share \d+ s\)")

    def test_within_the_budget_a_stage_over_its_share_is_not_a_warning(self):
        # The shares say where to look once the whole is over, not before.
        p = dry_run("build (ci)=500")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("WARNING", p.stdout)
        p = dry_run("build (ci)=500", 400)  # a tighter budget
        self.assertIn("WARNING: over its share: build (ci) 500 s", p.stdout)

    def test_the_shares_add_up_to_the_budget(self):
        text = open(SCRIPT).read()
        shares = [int(n) for n in re.findall(r'^\s+\["[^"]+"\]=(\d+)$', text, re.M)]
        self.assertEqual(len(shares), len(STAGES))
        self.assertEqual(sum(shares), 1200)


if __name__ == "__main__":
    unittest.main()
