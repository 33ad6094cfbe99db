"""Hostile input, round three (issue 28): numbers. Every numeric flag of every command reads its text
with one strict reader (common/strict_number.hpp) and a range of its own: a hex, an overflowing, a
subnormal and a trailing-garbage value are each exit 2 with one whole line naming the flag, before
any work and without touching a file. The flags are found from each command's --help, so a new
numeric flag that is not in the table below fails this test until it is."""
import os
import re
import unittest

from ringbench_test import SANITIZED, folder_state, run, tempdir

TINY = ["--seq", "64", "--cp", "1", "--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--repeats", "1",
        "--warmup", "0", "--rounds", "1"]

# Every flag that takes a number (or a name or a number), per command.
NUMERIC = {
    "run": ["--seq", "--seq-begin", "--seq-end", "--seq-factor", "--cp", "--heads", "--kv-heads", "--head-dim",
            "--seed", "--repeats", "--warmup", "--link-gbps", "--full-check-limit", "--check-rows", "--rounds",
            "--devices", "--require-power", "--max-noise", "--min-samples", "--max-time", "--throttle-threshold",
            "--throttle-recovery", "--timeout", "--memory-limit", "--ulysses-degree"],
    "model": ["--layers", "--hidden", "--heads", "--kv-heads", "--head-dim", "--tp", "--pp", "--micro-batch", "--cp",
              "--seq", "--link", "--latency-us", "--peak", "--efficiency", "--ulysses-degree", "--node-size",
              "--inner-link", "--seed"],
    "analyze": ["--max-trace-mb"],
    "report": ["--max-timelines"],
    "compare": ["--alpha", "--threshold"],
    "accept": [],
    "trend": ["--threshold"],
    "ab": [],  # every run flag it passes on is refused by run's own reader (test_ab_run.py)
    "fleet": ["--max-shortfall", "--spreads", "--min-shortfall", "--min-nodes"],
}
# Every other flag that takes a value: names, paths, ids.
TEXT = {
    "run": ["--split", "--variant", "--dtype", "--backend", "--transport", "--kernel", "--phase", "--dkv", "--out", "--dump",
            "--rank-mode", "--launch", "--only", "--cpu-bind", "--documents"],
    "model": ["--preset", "--split", "--variant", "--memory-row", "--phase", "--documents"],
    "analyze": ["--stream-role"],
    "report": ["--out", "--title", "--history", "--timeline"],
    "compare": ["--metric", "--json-out", "--html", "--repeat-of"],
    "accept": ["--results", "--out", "--junit", "--kernel"],
    "trend": ["--out", "--title", "--compare", "--baseline", "--metric"],
    "ab": ["--out", "--pace"],
    "fleet": ["--json-out", "--junit", "--html"],
}
# A hex, an overflowing, a subnormal and a trailing-garbage value.
BAD = ["0x10", "1e999", "1e-320", "5x"]


def flags_with_values(command):
    """The long names of the flags of `command` that take a value, from its --help: the name is
    followed by one space and a type (a flag without one is followed by the description's column)."""
    p = run(command, "--help")
    assert p.returncode == 0, p.stderr
    found = []
    for line in p.stdout.splitlines():
        m = re.match(r"^\s+(?:-\w,)?(--[\w-]+) (\S+)", line)
        if m and not m.group(2).endswith(":"):  # "--causal Excludes: --no-causal"
            found.append(m.group(1))
    return found


class HostileNumbers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.d = cls.tmp.name
        p = run("run", *TINY, "--trace", "--out", os.path.join(cls.d, "base"), cwd=cls.d)
        assert p.returncode == 0, p.stderr
        cls.results = os.path.join(cls.d, "base", "results.json")
        traces = os.path.join(cls.d, "base", "traces")
        cls.trace = os.path.join(traces, sorted(n for n in os.listdir(traces) if n.endswith(".json"))[0])
        cls.hist = os.path.join(cls.d, "hist")
        os.makedirs(cls.hist)
        with open(cls.results) as f, open(os.path.join(cls.hist, "2026-11-01.json"), "w") as g:
            g.write(f.read())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def base(self, command, flag):
        """A command line that would do real work were its number taken, writing only into the test's folder;
        without `flag`, which CLI11 would refuse to take twice."""
        d = self.d
        tiny = [a for name, value in zip(TINY[::2], TINY[1::2]) if name != flag for a in (name, value)]
        return {
            "run": ["run", *tiny, "--out", os.path.join(d, "out")],
            "model": ["model", "--preset", "llama3-8b", "--cp", "2", "--no-simulate"],
            "analyze": ["analyze", self.trace],
            "report": ["report", self.results, "-o", os.path.join(d, "report.html")],
            "compare": ["compare", self.results, self.results, "--json-out", os.path.join(d, "cmp.json")],
            "trend": ["trend", self.hist, "-o", os.path.join(d, "trend.html")],
            "fleet": ["fleet", self.results, "--html", os.path.join(d, "fleet.html")],
        }[command]

    def assert_refused(self, argv, flag, words=()):
        before = folder_state(self.d)
        p = run(*argv, cwd=self.d)
        self.assertEqual(p.returncode, 2, f"{argv}: {p.stdout[-500:]}{p.stderr[-500:]}")
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(f"error: {flag}: value", lines[0])
        self.assertNotIn("[...", lines[0], "the rule was cut: make it shorter")
        for w in words:
            self.assertIn(w, lines[0])
        self.assertEqual(p.stdout, "")
        self.assertEqual(folder_state(self.d), before, f"{argv} changed a file")
        return lines[0]

    def test_every_flag_with_a_value_is_classified(self):
        # A new numeric flag must join NUMERIC (and so the refusals below); a new text flag, TEXT.
        p = run("--help")
        commands = re.findall(r"^\s+(\w+)\s", p.stdout.split("Subcommands:")[1], re.M)
        self.assertEqual(sorted(commands), sorted(NUMERIC))
        for command in commands:
            with self.subTest(command=command):
                self.assertEqual(sorted(flags_with_values(command)), sorted(NUMERIC[command] + TEXT[command]))

    def test_every_numeric_flag_refuses_hex_overflow_subnormal_and_garbage(self):
        k = 0
        for command, flags in NUMERIC.items():
            for flag in flags:
                # Every flag meets every bad value in the ci stage; under a sanitizer, where a start of
                # the binary is most of a case's time, each flag meets one, in turn, so that every flag
                # and every value still run under ASan (fuzz_numbers drives the reader with far more).
                k += 1
                for value in [BAD[k % len(BAD)]] if SANITIZED else BAD:
                    with self.subTest(command=command, flag=flag, value=value):
                        self.assert_refused(self.base(command, flag) + [flag, value], flag, [value])

    def test_the_examples_of_the_issue(self):
        cases = [
            # Ran unpaced: the transfer time overflowed int64.
            (["run", *TINY, "--link-gbps", "1e-320"], "--link-gbps", ["2.2e-308", "[0.001, 1000000] Gbit/s"]),
            (["run", *TINY, "--link-gbps", "1e-300"], "--link-gbps", ["[0.001, 1000000] Gbit/s"]),
            # Became "no limit".
            (["run", *TINY, "--memory-limit", "1e-10"], "--memory-limit", ["[1e-09, 1048576] GiB"]),
            # Read as 1600%.
            (["compare", self.results, self.results, "--threshold", "0x10"], "--threshold", ["JSON"]),
            (["trend", self.hist, "--threshold", "0x10%"], "--threshold", ["JSON"]),
            # Said "must be >= 0".
            (["compare", self.results, self.results, "--threshold", "1e-320"], "--threshold", ["2.2e-308"]),
            # Exit 1 from the step table, and 300-digit cells.
            (["model", "--preset", "llama3-8b", "--link", "1e-320"], "--link", ["2.2e-308"]),
            (["model", "--preset", "llama3-8b", "--latency-us", "1e300"], "--latency-us", ["[0, 1000000] us"]),
            (["model", "--preset", "llama3-8b", "--peak", "1e-320"], "--peak", ["2.2e-308"]),
            (["model", "--preset", "llama3-8b", "--efficiency", "1e-300"], "--efficiency", ["[0.001, 1]"]),
            # Leading space or '+', which std::stoi took.
            (["run", *TINY, "--inject-fault", "throw@ 0"], "--inject-fault", []),
            (["run", *TINY, "--inject-fault", "throw@+0"], "--inject-fault", []),
            (["run", *TINY, "--seed", " 1"], "--seed", []),
            (["run", *TINY, "--seed", "9223372036854775808"], "--seed", []),
            (["analyze", self.trace, "--max-trace-mb", "1.5"], "--max-trace-mb", ["not whole", "at most 16777216"]),
            # CLI11's delimiter dropped an empty item.
            (["model", "--preset", "llama3-8b", "--cp", "1,,2"], "--cp", ["empty"]),
        ]
        for argv, flag, words in cases:
            with self.subTest(argv=argv):
                self.assert_refused(argv, flag, words)

    def test_a_profile_link_below_the_floor_is_refused_like_the_flag(self):
        # The flag and the profile field share one floor: 1e-320 is a subnormal JSON number there.
        for value in ("1e-320", "1e-4"):
            with self.subTest(value=value):
                profile = os.path.join(self.d, "link.json")
                with open(profile, "w") as f:
                    f.write('{"name": "link", "sweep": {"seq": [64], "cp": [1], "heads": [2], "kv_heads": [1], '
                            '"head_dim": [8], "repeats": 1, "link_gbps": %s}}' % value)
                before = folder_state(self.d)
                p = run("run", profile, "--out", os.path.join(self.d, "out-link"), cwd=self.d)
                self.assertEqual(p.returncode, 2, p.stderr)
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertIn("/sweep/link_gbps", lines[0])
                self.assertIn("[0.001, 1000000] Gbit/s", lines[0])
                self.assertEqual(folder_state(self.d), before)

    def test_an_unknown_command_is_named_with_the_commands(self):
        before = folder_state(self.d)
        p = run("frobnicate", cwd=self.d)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("frobnicate", p.stderr)
        self.assertIn("unknown command", p.stderr)
        self.assertIn("run, analyze, model, report, compare, accept, trend", p.stderr)
        self.assertNotIn("A subcommand is required", p.stderr)
        self.assertEqual(folder_state(self.d), before)
        p = run(cwd=self.d)
        self.assertEqual(p.returncode, 2)
        self.assertIn("give one of the commands", p.stderr)

    def test_whole_numbers_may_be_written_as_decimals(self):
        # 1e3 is a fine way to write 1000; the value is read exactly.
        p = run("analyze", self.trace, "--max-trace-mb", "1e3", "--json", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run("model", "--preset", "llama3-8b", "--seq", "1.5k", "--cp", "2e0", "--tp", "1.0", "--json", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('"seq": 1536', p.stdout)
        p = run("compare", self.results, self.results, "--threshold", "2.5e0%", "--json", cwd=self.d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('"threshold": 0.025', p.stdout)


if __name__ == "__main__":
    unittest.main()
