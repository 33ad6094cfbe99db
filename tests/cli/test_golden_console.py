"""`ringbench run`'s console (bench/sweep/progress.hpp, docs/console.md) on a fixed small
sweep with an ok, a FAILED and a skipped configuration, in both of its forms:

- log (stderr not a terminal, as in CI): a header, one final row per configuration and no line per
  round, a line per pass of interleaved rounds;
- terminal (forced with RINGBENCH_TTY=1, as tests have no terminal): a live row rewritten in place
  (return and erase) showing "round 2/2", each configuration's final row kept.

Each form is checked for alignment on the raw output (every row's columns at the header's offsets)
and, with every measured figure masked, against tests/data/golden/console/; the figures of each
final row are checked against results.json (the cpu backend's rate in GFLOP/s), the `noisy` mark
and the one noise summary after the rows against their documented rule, and --quiet and --verbose
for what they print. Where a test needs noise it plants it (a round made slower by --inject-fault
slow), and where it needs none it takes one sample, so a loaded machine decides nothing.
RINGBENCH_UPDATE_GOLDEN=1 rewrites the golden texts."""
import math
import os
import re
import subprocess
import unittest

from ringbench_test import BIN, SOURCE_DIR, console_lines, console_rows, read_json, run, tempdir

GOLDEN = os.path.join(SOURCE_DIR, "tests", "data", "golden", "console")
UPDATE = os.environ.get("RINGBENCH_UPDATE_GOLDEN", "")

# Four configurations: S=64 c=1 ok, S=64 c=2 FAILED (an injected throw), S=98 c=1 ok, S=98 c=2
# skipped (zigzag needs S % 2c == 0); float64 and a fixed seed, so max_err is the same on every run.
SWEEP = ["--seq", "64,98", "--cp", "1,2", "--split", "zigzag", "--variant", "ring", "--heads", "2", "--kv-heads", "1",
         "--head-dim", "8", "--dtype", "float64", "--seed", "7", "--repeats", "4", "--rounds", "2", "--warmup", "0",
         "--skip-invalid", "--inject-fault", "throw@1"]

# The cpu backend's rates read in GFLOP/s (common/flops_unit.hpp); results.json keeps TFLOP/s.
COLUMNS = ["# k/N", "ETA", "configuration", "status", "median_ms", "noise", "GFLOP/s/rank", "exposed_ms", "exposed%",
           "overlap", "imbalance", "max_err"]
FIGURES = COLUMNS[4:]
# Figures that come from a clock (masked in the golden text); max_err is exact for a fixed seed.
MEASURED = {"median_ms", "noise", "GFLOP/s/rank", "exposed_ms", "exposed%", "overlap", "imbalance"}
# A row's mark where its noise hides a 5% change, and the one summary after the rows.
NOISY_MARK = re.compile(r"  noisy(?=  |$)")
SUMMARY = "! "


def env_without_tty(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("RINGBENCH_TTY", "COLUMNS")}
    env.update(extra)
    return env


def header_offsets(header):
    """Each column's name's (start, end) in the header line."""
    out, at = {}, 0
    for name in COLUMNS:
        i = header.index(name, at)
        out[name] = (i, i + len(name))
        at = i + len(name)
    return out


def figure_tokens(row, status_start, status):
    """The figure cells after a row's status as (text, end offset), at most len(FIGURES)."""
    at = status_start + len(status)
    return [(m[0], m.end() + at) for m in re.finditer(r"\S+", row[at:])][:len(FIGURES)]


def masked(line, offsets):
    """A console line with what a clock decides replaced: a row's ETA and measured figures become a
    right-aligned '*' ('-' stays: no value), a pass line's seconds and ETA become '*'."""
    if line.startswith("# ["):
        return re.sub(r"in [\d.]+ s; ETA \S+", "in * s; ETA *", line)
    m = console_rows(line)
    if not m:
        return line
    r = m[0]
    chars = list(line)

    def mask(end, text):
        if any(ch.isdigit() for ch in text):
            chars[end - len(text):end] = " " * (len(text) - 1) + "*"

    mask(offsets["ETA"][1], r["eta"])
    if r["status"] not in ("FAILED", "skipped"):
        for (text, end), name in zip(figure_tokens(line, offsets["status"][0], r["status"]), FIGURES):
            if name in MEASURED:
                mask(end, text)
    return "".join(chars)


def golden_text(stderr):
    """stderr as the golden file holds it: each line a log or terminal shows (the live row's rewrites
    split apart), masked, without the `noisy` marks and the noise summary (the noise is measured;
    their rule is tested on its own) and without a machine's own warnings (`ringbench: warning: …`,
    e.g. about CPU binding)."""
    lines = console_lines(stderr)
    header = next(l for l in lines if l.startswith("# k/N"))
    offsets = header_offsets(header)
    kept = [NOISY_MARK.sub("", l) for l in lines
            if not l.startswith(SUMMARY) and not l.startswith("ringbench: warning:")]
    return "".join(masked(l, offsets) + "\n" for l in kept)


def visible_change(run):
    """The smallest change compare could see in a run, by the console's rule: 2 · noise · sqrt(2 / n)."""
    t = run["timing"]
    return 2 * t["noise_pct"] * math.sqrt(2 / t["count"]) if t.get("count", 0) >= 2 else 0.0


def label_of(run):
    c = run["config"]
    return f"S={c['seq']} c={c['cp']} zigzag ring Hq=2 Hkv=1 D=8 causal float64 cpu/local"


class GoldenConsole(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.runs = {}
        for form, env in (("log", env_without_tty()), ("terminal", env_without_tty(RINGBENCH_TTY="1"))):
            out = os.path.join(cls.tmp.name, form)
            p = run("run", *SWEEP, "--out", out, env=env)
            cls.runs[form] = (p, read_json(os.path.join(out, "results.json")))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_golden(self, name, text):
        path = os.path.join(GOLDEN, name)
        if UPDATE:
            os.makedirs(GOLDEN, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        with open(path) as f:
            self.assertEqual(f.read(), text, f"{path}: RINGBENCH_UPDATE_GOLDEN=1 rewrites it after a change made on purpose")

    def check_alignment(self, stderr):
        lines = console_lines(stderr)
        headers = [l for l in lines if l.startswith("# k/N")]
        self.assertEqual(len(headers), 1, stderr)
        offsets = header_offsets(headers[0])
        rows = console_rows(stderr)
        self.assertTrue(rows)
        reasons = set()
        for r in rows:
            line = r["line"]
            with self.subTest(line=line):
                self.assertEqual(re.match(r"^\[[^\]]*\] +(\S+)", line).end(1), offsets["ETA"][1])
                self.assertEqual(line.index(r["label"]), offsets["configuration"][0])
                status_start = line.index(r["status"], offsets["configuration"][0] + len(r["label"]))
                self.assertEqual(status_start, offsets["status"][0])
                if r["status"] in ("FAILED", "skipped"):
                    reasons.add(len(line) - len(r["rest"]))
                    continue
                tokens = figure_tokens(line, status_start, r["status"])
                if r["status"] == "ok":
                    self.assertEqual(len(tokens), len(FIGURES))
                for (_, end), name in zip(tokens, FIGURES):
                    self.assertEqual(end, offsets[name][1], name)
        self.assertEqual(len(reasons), 1, "a reason starts at the same column in every row")
        return rows

    def check_final_rows(self, stderr, doc):
        """One final row per configuration, whose figures are its record's."""
        final = [r for r in console_rows(stderr) if r["status"] in ("ok", "FAILED", "skipped")]
        by_label = {}
        for r in final:
            self.assertNotIn(r["label"], by_label, "one final row per configuration")
            by_label[r["label"]] = r
        self.assertEqual(len(by_label), len(doc["runs"]))
        statuses = sorted(r["status"] for r in final)
        self.assertEqual(statuses, ["FAILED", "ok", "ok", "skipped"])
        # The counter counts configuration-rounds across the sweep: 2 + 1 + 2 + 1 at the end.
        self.assertEqual((final[-1]["k"], final[-1]["n"]), (6, 6))
        for run in doc["runs"]:
            c = run["config"]
            label = f"S={c['seq']} c={c['cp']} zigzag ring Hq=2 Hkv=1 D=8 causal float64 cpu/local"
            r = by_label[label]
            if run["status"] != "ok":
                self.assertEqual(r["rest"], run["reason"])
                continue
            cells = r["rest"].split()[:len(FIGURES)]
            t, m = run["timing"], run["metrics"]
            self.assertEqual(cells[0], f"{t['median_ms']:.3f}")
            self.assertEqual(cells[1], f"±{t['noise_pct']:.1f}%")
            self.assertEqual(cells[2], f"{m['attention_tflops'] * 1000:.3f}")  # GFLOP/s
            if c["cp"] == 1:  # no comm: nothing exposed, no overlap
                self.assertEqual(cells[3:6], ["-", "-", "-"])
            else:
                self.assertEqual(cells[3], f"{m['exposed_comm_ms']:.3f}")
                self.assertEqual(cells[4], f"{100 * m['exposed_comm_ms'] / m['pass_time_ms']:.1f}%")
                self.assertEqual(cells[5], f"{100 * m['overlap_fraction']:.1f}%")
            self.assertEqual(cells[6], f"{m['imbalance']:.3f}")
            self.assertEqual(cells[7], f"{run['correctness']['max_abs_err']:.2e}")
        return by_label

    def check_noise_marks(self, stderr, doc):
        """An ok row ends with `noisy` exactly when 2 · noise · sqrt(2 / n) > 5%, nothing is printed
        under any row, and one summary after the last row names how many of the ok rows are noisy and
        the worst of them, or none is printed where no row is (docs/console.md). Returns the noisy
        runs."""
        lines = console_lines(stderr)
        ok = [run for run in doc["runs"] if run["status"] == "ok"]
        noisy = []
        for run in ok:
            final = [l for l in lines if label_of(run) in l and re.search(r"  ok  ", l)]
            self.assertEqual(len(final), 1, final)
            marked = bool(NOISY_MARK.search(final[0]))
            self.assertEqual(marked, visible_change(run) > 5, (final[0], visible_change(run)))
            if marked:
                noisy.append(run)
        self.assertFalse([l for l in lines if re.match(r"^\s+!", l)], "no line under a row")
        summaries = [i for i, l in enumerate(lines) if l.startswith(SUMMARY)]
        if not noisy:
            self.assertEqual(summaries, [], stderr)
            return noisy
        self.assertEqual(len(summaries), 1, stderr)
        at = summaries[0]
        self.assertEqual(lines[at + 1], lines[-1], "the summary is the last line before the count")
        self.assertRegex(lines[-1], r"^ringbench: \d+ ok")
        self.assertFalse([l for l in lines[at + 1:] if console_rows(l)], "after every row")
        worst = max(noisy, key=visible_change)
        t = worst["timing"]
        plural = "s" if len(ok) > 1 else ""
        self.assertTrue(lines[at].startswith(
            f"! {len(noisy)} of {len(ok)} configuration{plural} {'is' if len(noisy) == 1 else 'are'} noisy: "
            "the noise hides a 5% change from compare. "), lines[at])
        self.assertIn(f"The worst, {label_of(worst)}: noise ±{t['noise_pct']:.1f}% over {t['count']} samples "
                      f"(the smallest change compare could see: {visible_change(worst):.1f}%)", lines[at])
        self.assertTrue(lines[at].endswith("Take more samples (--repeats, --rounds, --max-noise) or quiet the "
                                           "machine"), lines[at])
        return noisy

    def test_log(self):
        p, doc = self.runs["log"]
        self.assertEqual(p.returncode, 1, p.stderr)  # a configuration failed
        self.assertNotIn("\x1b", p.stderr)
        self.assertNotIn("\r", p.stderr)
        self.assertNotRegex(p.stderr, r"\] r\d", "no line per round")
        self.assertFalse([r for r in console_rows(p.stderr) if r["status"].startswith("round")])
        self.check_alignment(p.stderr)
        self.check_final_rows(p.stderr, doc)
        self.check_noise_marks(p.stderr, doc)
        # The interleaved pass: one line, with the counter and an ETA.
        self.assertRegex(p.stderr, r"(?m)^# \[4/6\] round 1/2 of every configuration done in [\d.]+ s; ETA \d+:\d\d$")
        self.assertEqual(p.stderr.splitlines()[-1], "ringbench: 2 ok, 1 failed, 1 skipped")
        self.assertRegex(p.stdout, r"report: .*report\.html\nresults: .*results\.json\n$")
        self.check_golden("log.txt", golden_text(p.stderr))

    def test_terminal(self):
        p, doc = self.runs["terminal"]
        self.assertEqual(p.returncode, 1, p.stderr)
        rows = self.check_alignment(p.stderr)
        self.check_final_rows(p.stderr, doc)
        self.check_noise_marks(p.stderr, doc)
        # The live row shows each configuration's round, its figures so far after the first.
        live = [r for r in rows if r["status"].startswith("round")]
        self.assertIn("round 2/2", {r["status"] for r in live})
        # (A configuration closed without a round, the skipped one, starts as round 1 of 1.)
        self.assertTrue(all(r["status"] in ("round 1/2", "round 2/2", "round 1/1") for r in live))
        # The counter never goes back and ends at the sweep's configuration-rounds.
        ks = [r["k"] for r in rows]
        self.assertEqual(ks, sorted(ks))
        self.assertNotIn("# [", p.stderr, "no pass lines on a terminal: the live row counts")
        self.check_golden("terminal.txt", golden_text(p.stderr))

    def test_live_row_fits_the_terminal(self):
        with tempdir() as d:
            p = subprocess.run([BIN, "run", *SWEEP, "--out", os.path.join(d, "r")], capture_output=True, timeout=600,
                               env=env_without_tty(RINGBENCH_TTY="1", COLUMNS="60"))
            self.assertEqual(p.returncode, 1, p.stderr)
            segments = p.stderr.split(b"\r\x1b[K")
            live = [s for s in segments[1:] if not s.endswith(b"\n")]
            self.assertTrue(live)
            for s in live:
                self.assertLessEqual(len(s.decode()), 59, s)
            # A kept row is whole: the next segment starts with it.
            self.assertTrue(any(b"  ok  " in s and len(s.decode()) > 60 for s in segments))

    def test_quiet_prints_failures_and_the_summary(self):
        with tempdir() as d:
            p = run("run", *SWEEP, "--quiet", "--out", os.path.join(d, "r"), env=env_without_tty(RINGBENCH_TTY="1"))
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stderr.splitlines(), [
                "ringbench: FAILED S=64 c=2 zigzag ring Hq=2 Hkv=1 D=8 causal float64 cpu/local: "
                "cpu executor: injected fault in rank 0",
                "ringbench: 2 ok, 1 failed, 1 skipped"])
            self.assertRegex(p.stdout, r"report: .*\nresults: .*results\.json\n$")

    def test_verbose_adds_a_line_per_round(self):
        with tempdir() as d:
            out = os.path.join(d, "r")
            p = run("run", *SWEEP, "--verbose", "--out", out, env=env_without_tty())
            self.assertEqual(p.returncode, 1, p.stderr)
            # The two ok configurations' first rounds, as the lines before the table were.
            rounds = [l for l in p.stderr.splitlines() if re.match(r"^\[\d/4\] r1/2 +S=", l)]
            self.assertEqual(len(rounds), 2, p.stderr)
            self.assertTrue(all("median " in l and "GFLOP/s per rank" in l for l in rounds))  # the table's unit
            self.check_alignment(p.stderr)
            self.check_final_rows(p.stderr, read_json(os.path.join(out, "results.json")))

    def test_quiet_and_verbose_exclude_each_other(self):
        p = run("run", *SWEEP, "--quiet", "--verbose")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--quiet: value given with --verbose is invalid: cannot be given with --verbose", p.stderr)

    def noisy_sweep(self, d, fault, *extra, env=None):
        """S = 64 at c = 1 and 2 (4 samples over 2 rounds) with `fault` planted; (process, results)."""
        out = os.path.join(d, "r")
        p = run("run", "--seq", "64", "--cp", "1,2", "--split", "zigzag", "--heads", "2", "--kv-heads", "1",
                "--head-dim", "8", "--dtype", "float64", "--repeats", "4", "--rounds", "2", "--warmup", "0",
                "--inject-fault", fault, *extra, "--out", out, env=env or env_without_tty())
        self.assertEqual(p.returncode, 0, p.stderr)
        return p, read_json(os.path.join(out, "results.json"))

    def test_noisy_mark_on_a_planted_slow_round(self):
        # Configuration 0's second round 400% slower: its samples are t, t, 5t, 5t (noise ~77%).
        with tempdir() as d:
            p, doc = self.noisy_sweep(d, "slow:400@0/2")
            row = next(r for r in console_rows(p.stderr) if r["label"].startswith("S=64 c=1 ") and r["status"] == "ok")
            self.assertRegex(row["line"], r"  noisy$")
            self.assertIn(doc["runs"][0], self.check_noise_marks(p.stderr, doc))

    def test_a_sweep_of_noisy_rows_prints_one_summary(self):
        # Every configuration's second round 1000% slower (t, t, 11t, 11t: noise ~96%), as on a
        # machine loaded throughout: every row marked, no line under any, one summary with the count.
        for form, env in (("log", env_without_tty()), ("terminal", env_without_tty(RINGBENCH_TTY="1"))):
            with self.subTest(form=form), tempdir() as d:
                p, doc = self.noisy_sweep(d, "slow:1000@0,1/2", env=env)
                self.assertEqual(len(self.check_noise_marks(p.stderr, doc)), 2)
                self.assertEqual(sum(1 for l in console_lines(p.stderr) if l.startswith("! 2 of 2 configurations are "
                                                                                       "noisy")), 1, p.stderr)
                self.assertEqual(p.stderr.splitlines()[-1], "ringbench: 2 ok, 0 failed, 0 skipped")
                # --quiet prints no rows, so no summary either.
                q = run("run", "--seq", "64", "--cp", "1", "--split", "zigzag", "--heads", "2", "--kv-heads", "1",
                        "--head-dim", "8", "--dtype", "float64", "--repeats", "4", "--rounds", "2", "--warmup", "0",
                        "--inject-fault", "slow:1000@0/2", "--quiet", "--out", os.path.join(d, "q"), env=env)
                self.assertEqual(q.returncode, 0, q.stderr)
                self.assertEqual(q.stderr.splitlines(), ["ringbench: 1 ok, 0 failed, 0 skipped"])

    def test_a_quiet_sweep_prints_no_summary(self):
        # One sample a configuration has no noise to judge, whatever the machine: no mark, no summary.
        with tempdir() as d:
            out = os.path.join(d, "r")
            p = run("run", "--seq", "64", "--cp", "1,2", "--split", "zigzag", "--heads", "2", "--kv-heads", "1",
                    "--head-dim", "8", "--dtype", "float64", "--repeats", "1", "--rounds", "1", "--warmup", "0",
                    "--out", out, env=env_without_tty())
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(self.check_noise_marks(p.stderr, read_json(os.path.join(out, "results.json"))), [])
            self.assertNotIn("noisy", p.stderr)
            self.assertFalse([l for l in console_lines(p.stderr) if l.lstrip().startswith("!")], p.stderr)

    def test_the_cpu_backends_rates_read_in_gflops(self):
        # S = 1024, Hq = 8, D = 64 on one thread: a few GFLOP/s, which in TFLOP/s read 0.00x and hid
        # every difference. The column's unit is chosen from the backend, before the first row.
        with tempdir() as d:
            out = os.path.join(d, "r")
            p = run("run", "--seq", "1024", "--cp", "1", "--split", "zigzag", "--heads", "8", "--kv-heads", "2",
                    "--head-dim", "64", "--dtype", "float32", "--repeats", "2", "--rounds", "1", "--warmup", "0",
                    "--full-check-limit", "256", "--out", out, env=env_without_tty())
            self.assertEqual(p.returncode, 0, p.stderr)
            header = next(l for l in console_lines(p.stderr) if l.startswith("# k/N"))
            self.assertIn("GFLOP/s/rank", header)
            self.assertNotIn("TFLOP", p.stderr)
            tflops = read_json(os.path.join(out, "results.json"))["runs"][0]["metrics"]["attention_tflops"]
            row = next(r for r in console_rows(p.stderr) if r["status"] == "ok")
            rate = row["rest"].split()[2]
            # The printed figure is the record's rate in GFLOP/s. How fast the machine ran is not this
            # test's to assert (a loaded machine, or one under ASan, reads 0.2 GFLOP/s here): only
            # that the column carries three more digits of it than TFLOP/s did.
            self.assertEqual(rate, f"{tflops * 1000:.3f}")


if __name__ == "__main__":
    unittest.main()
