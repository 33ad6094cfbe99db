"""asv's step detection as a peer of `ringbench trend`. Nightly histories are built from one real
CPU-backend run (its results file, every night a copy whose timings are scaled by a planted level
and seeded noise, as scale_timing plants a slowdown); `ringbench trend --json` finds the steps of
each history, and asv's own `asv.step_detect.detect_steps` (the pinned asv that `scripts/pypi-deps.sh
tools` installs into .deps/pytools, run by asv_client.py in a process of its own) fits the very
series trend read. Per configuration, median_ms (lower is better) and attention_tflops (higher is
better; negated for asv's detect_regressions, which reports upward steps only).

- Agreement (22 histories): every clear planted step, one or two per history (25-40% with 2% noise,
  36 to 60 nights), lands on the same night, within one, in both; neither finds a step in a flat
  history with noise; both name the same regressions where a regression still shows at the latest
  night.
- Differences by design (docs/nightly.md, "trend and asv"): asv chooses its penalty per series
  (solve_potts_autogamma: 4 ln(n)/n per piece on a log scale, with the residuals' correlation
  fitted), trend's is 3 sigma ln(n + 1) with sigma the night-to-night noise. So on 20 nights a 10%
  step (5 sigma) is found by trend nearly always and by asv about half the time; a slow drift is a
  staircase of steps to trend and no step to asv; and asv's detect_regressions drops a regression
  that a later step undid, where trend reports every step the worse way.

Skipped (exit 77, or a unittest skip) with the reason where asv is not installed."""
import datetime
import json
import os
import random
import subprocess
import sys
import time
import unittest

from ringbench_test import BIN, pytool, pytools_run, read_json, scale_timing, skip_process, sweep, tempdir

HERE = os.path.dirname(os.path.abspath(__file__))
NOISE = 0.02
METRICS = {"median_ms": False, "attention_tflops": True}  # metric: higher is better
# A small real sweep: two configurations, so every history has two series per metric.
SHAPE = ["--seq", "256", "--cp", "2", "--split", "zigzag", "--variant", "ring,allgather", "--heads", "4",
         "--kv-heads", "2", "--head-dim", "32", "--dtype", "float32", "--rounds", "1"]


class History:
    def __init__(self, name, kind, levels, planted, noise=NOISE, seed=0):
        self.name, self.kind, self.levels, self.planted = name, kind, levels, planted
        self.noise, self.seed = noise, seed


def steps_at(n, at_levels):
    """Levels over n nights: at_levels is [(first night, level), ...] from night 0."""
    out, cur, it = [], None, iter(at_levels)
    nxt = next(it)
    for i in range(n):
        while nxt is not None and nxt[0] == i:
            cur = nxt[1]
            nxt = next(it, None)
        out.append(cur)
    return out


def histories():
    """Every history of the test, from fixed seeds: the same nights on every machine."""
    hs = []
    rng = random.Random(27)
    for i in range(8):  # one clear step, either way
        n = rng.randint(36, 60)
        k = rng.randint(8, n - 8)
        size = rng.uniform(0.25, 0.40)
        level = 1 + size if i % 2 == 0 else 1 - size
        hs.append(History(f"one-step-{i}", "one", steps_at(n, [(0, 1.0), (k, level)]), [k], seed=1000 + i))
    for i in range(8):  # two clear steps: up-up, down-down, up-down, down-up
        n = rng.randint(44, 60)
        k1 = rng.randint(8, n // 2 - 4)
        k2 = rng.randint(k1 + 10, n - 8)
        s1, s2 = rng.uniform(0.30, 0.40), rng.uniform(0.30, 0.40)
        d1, d2 = [(1, 1), (-1, -1), (1, -1), (-1, 1)][i % 4]
        a = 1 + d1 * s1
        b = a * (1 + d2 * s2)
        hs.append(History(f"two-steps-{i}", "two", steps_at(n, [(0, 1.0), (k1, a), (k2, b)]), [k1, k2], seed=2000 + i))
    for i, n in enumerate((20, 25, 30, 40, 50, 60)):  # no step, noise only
        hs.append(History(f"flat-{i}", "flat", [1.0] * n, [], seed=3000 + i))
    for i, (n, total) in enumerate(((30, 0.3), (40, 0.2), (50, 0.3), (60, -0.25))):  # a slow drift, 1% noise
        hs.append(History(f"drift-{i}", "drift", [1 + total * j / (n - 1) for j in range(n)], None, noise=0.01,
                          seed=4000 + i))
    for i in range(10):  # a small step: 10% slower from night 10 of 20 (5 sigma)
        hs.append(History(f"small-step-{i}", "small", steps_at(20, [(0, 1.0), (10, 1.10)]), [10], seed=5000 + i))
    for i, (n, size) in enumerate(((60, 0.5), (56, 0.45))):  # a regression that a later step undid
        k1, k2 = n // 4, n // 4 + int(0.4 * n)
        hs.append(History(f"fixed-{i}", "fixed", steps_at(n, [(0, 1.0), (k1, 1 + size), (k2, 1.0)]), [k1, k2],
                          seed=6000 + i))
    return hs


def night_doc(base, factors, night):
    """The base results with each run's timings scaled by its own factor (attention TFLOP/s by 1/factor).
    Only timing and metrics are copied: the rest of each record (timeline, plan, ...) is shared."""
    doc = dict(base)
    doc["runs"] = []
    for r, f in zip(base["runs"], factors):
        scaled = scale_timing({"runs": [{"timing": r["timing"], "metrics": r["metrics"]}]}, f)["runs"][0]
        doc["runs"].append({**r, **scaled})
    doc["tool"] = dict(base["tool"], git_sha=f"night{night:02d}")
    return doc


def write_text_json(path, doc):
    with open(path, "w") as f:
        f.write(json.dumps(doc))  # one C-encoded string: json.dump to a file is several times slower


class AsvPeer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.asv_version, reason = pytool("asv", "asv.step_detect")
        if reason:
            raise unittest.SkipTest(reason)
        t0 = time.perf_counter()
        cls.tmp = tempdir()
        base = read_json(sweep(os.path.join(cls.tmp.name, "base"), repeats=4, shape=SHAPE))
        assert all(r["status"] == "ok" and r["metrics"]["attention_tflops"] for r in base["runs"]), base["runs"]
        cls.configs = [r["config"]["id"] for r in base["runs"]]
        cls.sweep_seconds = time.perf_counter() - t0
        cls.histories = histories()
        cls.trend = {}
        cls.planted = {}  # (history, config): the factors planted, night by night
        t0 = time.perf_counter()
        for h in cls.histories:
            d = os.path.join(cls.tmp.name, h.name)
            os.makedirs(d)
            rng = random.Random(h.seed)
            factors = [[lv * (1 + rng.gauss(0, h.noise)) for lv in h.levels] for _ in cls.configs]
            for c, cid in enumerate(cls.configs):
                cls.planted[(h.name, cid)] = factors[c]
            day0 = datetime.date(2024, 1, 1)
            for i in range(len(h.levels)):
                write_text_json(os.path.join(d, f"{day0 + datetime.timedelta(days=i)}.json"),
                                night_doc(base, [f[i] for f in factors], i))
            p = subprocess.run([BIN, "trend", d, "-o", d + "-trend.html", "--json"], capture_output=True,
                               text=True, timeout=300)
            assert p.returncode == 0, f"trend on {h.name}: {p.stderr[-2000:]}"
            cls.trend[h.name] = json.loads(p.stdout)
        cls.trend_seconds = time.perf_counter() - t0
        # asv on the very series trend read.
        series = {}
        for h in cls.histories:
            j = cls.trend[h.name]
            for c in j["configs"]:
                for metric, higher in METRICS.items():
                    series[f"{h.name}|{c['id']}|{metric}"] = {"y": [p["value"] for p in c["series"][metric]],
                                                              "higher_is_better": higher}
        t0 = time.perf_counter()
        p = pytools_run(os.path.join(HERE, "asv_client.py"), input=json.dumps(series))
        cls.asv_seconds = time.perf_counter() - t0
        assert p.returncode == 0, f"asv failed ({p.returncode}): {p.stderr[-3000:]}"
        cls.asv = json.loads(p.stdout)
        cls.series = series
        cls.report = []

    @classmethod
    def tearDownClass(cls):
        print(f"\nasv {cls.asv['asv_version']} beside trend on {len(cls.histories)} histories "
              f"({len(cls.series)} series); sweep {cls.sweep_seconds:.1f} s, histories and trend "
              f"{cls.trend_seconds:.1f} s, asv {cls.asv_seconds:.1f} s", file=sys.stderr)
        for line in cls.report:
            print("  " + line, file=sys.stderr)
        cls.tmp.cleanup()

    # What each tool found, per (history, config, metric).
    def each(self, kinds):
        for h in self.histories:
            if h.kind not in kinds:
                continue
            j = self.trend[h.name]
            for c in j["configs"]:
                for metric, higher in METRICS.items():
                    yield h, c["id"], metric, higher, j, c

    def trend_steps(self, j, c, metric):
        """[(night, change, regression, beyond threshold)] trend found in one series."""
        return [(j["dates"].index(s["date"]), s["change"], s["regression"], s["beyond_threshold"])
                for s in c["steps"][metric]]

    def asv_of(self, h, cid, metric):
        a = self.asv["series"][f"{h.name}|{cid}|{metric}"]
        return [piece[0] for piece in a["steps"][1:]], [r[1] for r in a["regressions"]]

    def test_the_histories_are_real_runs_with_what_was_planted(self):
        self.assertEqual(self.asv["asv_version"], self.asv_version)
        agreement = [h for h in self.histories if h.kind in ("one", "two", "flat")]
        self.assertGreaterEqual(len(agreement), 20)
        for h, cid, metric, higher, j, c in self.each({"one", "two", "flat", "drift", "small", "fixed"}):
            values = [p["value"] for p in c["series"][metric]]
            f = self.planted[(h.name, cid)]
            self.assertEqual(len(values), len(h.levels))
            ratios = [v / (1 / x if higher else x) for v, x in zip(values, f)]  # the real run's value, every night
            self.assertLess(max(ratios) / min(ratios) - 1, 1e-9, (h.name, cid, metric))

    def test_clear_steps_land_on_the_same_night(self):
        worst = {"trend": 0, "asv": 0, "between": 0}
        n = 0
        for h, cid, metric, higher, j, c in self.each({"one", "two"}):
            with self.subTest(history=h.name, config=cid, metric=metric):
                t = [s[0] for s in self.trend_steps(j, c, metric)]
                a, _ = self.asv_of(h, cid, metric)
                for k in h.planted:
                    nt = min(t, key=lambda x: abs(x - k), default=None)
                    na = min(a, key=lambda x: abs(x - k), default=None)
                    self.assertIsNotNone(nt, f"trend found no step near night {k}: {t}")
                    self.assertIsNotNone(na, f"asv found no step near night {k}: {a}")
                    worst["trend"] = max(worst["trend"], abs(nt - k))
                    worst["asv"] = max(worst["asv"], abs(na - k))
                    worst["between"] = max(worst["between"], abs(nt - na))
                    self.assertLessEqual(abs(nt - k), 1, f"trend {t}, planted {h.planted}")
                    self.assertLessEqual(abs(na - k), 1, f"asv {a}, planted {h.planted}")
                    self.assertLessEqual(abs(nt - na), 1)
                    n += 1
        self.report.append(f"clear steps: {n} planted steps found by both; largest distance from the planted "
                           f"night: trend {worst['trend']}, asv {worst['asv']}; between them {worst['between']} nights")

    def test_no_step_in_flat_noisy_histories(self):
        for h, cid, metric, higher, j, c in self.each({"flat"}):
            with self.subTest(history=h.name, config=cid, metric=metric):
                self.assertEqual(self.trend_steps(j, c, metric), [])
                self.assertEqual(self.asv_of(h, cid, metric), ([], []))

    def test_both_name_the_regressions_that_still_show(self):
        """trend marks every step the metric's worse way; asv's detect_regressions (on the series
        negated where higher is better) those whose worse level still shows at the latest night."""
        for h, cid, metric, higher, j, c in self.each({"one", "two"}):
            with self.subTest(history=h.name, config=cid, metric=metric):
                lv = [1 / x if higher else x for x in h.levels]  # the planted level in the metric's own terms
                worse = [k for k in h.planted if (lv[k] < lv[k - 1]) == higher]
                still = [k for k in worse if all((v < lv[k - 1]) == higher for v in lv[k:])]
                t = self.trend_steps(j, c, metric)
                near = lambda xs, k: any(abs(x - k) <= 1 for x in xs)  # noqa: E731
                trend_reg = [s[0] for s in t if s[2]]
                _, asv_reg = self.asv_of(h, cid, metric)
                self.assertEqual(len(trend_reg), len(worse), t)
                self.assertTrue(all(near(trend_reg, k) for k in worse), (trend_reg, worse))
                self.assertEqual(len(asv_reg), len(still), asv_reg)
                self.assertTrue(all(near(asv_reg, k) for k in still), (asv_reg, still))

    # Where they differ by design (docs/nightly.md).
    def test_a_small_step_on_a_short_history_trend_finds_and_asv_often_misses(self):
        found = {"trend": 0, "asv": 0}
        total = 0
        false_steps = {"trend": 0, "asv": 0}
        for h, cid, metric, higher, j, c in self.each({"small"}):
            t = [s[0] for s in self.trend_steps(j, c, metric)]
            a, _ = self.asv_of(h, cid, metric)
            found["trend"] += t == [10]
            found["asv"] += a == [10]
            false_steps["trend"] += any(x != 10 for x in t)
            false_steps["asv"] += any(x != 10 for x in a)
            total += 1
        self.report.append(f"10% step on 20 nights (5 sigma): trend names night 10 in {found['trend']}/{total} series, "
                           f"asv in {found['asv']}/{total}; other steps: trend {false_steps['trend']}, "
                           f"asv {false_steps['asv']}")
        self.assertGreaterEqual(found["trend"], 0.85 * total)
        self.assertLessEqual(found["asv"], 0.75 * total)
        self.assertEqual(false_steps["asv"], 0)

    def test_a_slow_drift_is_a_staircase_to_trend_and_no_step_to_asv(self):
        for h, cid, metric, higher, j, c in self.each({"drift"}):
            with self.subTest(history=h.name, config=cid, metric=metric):
                t = self.trend_steps(j, c, metric)
                a, areg = self.asv_of(h, cid, metric)
                self.assertEqual(a, [], "asv fits a drift with one level (its residuals' correlation absorbs it)")
                lv = [1 / x if higher else x for x in h.levels]
                up = lv[-1] > lv[0]
                self.assertGreaterEqual(len(t), 1, "trend cuts a drift into steps")
                self.assertTrue(all((s[1] > 0) == up for s in t), t)  # every step the drift's way
                total = 1.0
                for s in t:
                    total *= 1 + s[1]
                # the steps add up to most of the drift
                self.assertLess(abs(total - lv[-1] / lv[0]), 0.5 * abs(lv[-1] / lv[0] - 1), (t, lv[-1] / lv[0]))
                if up != higher:  # getting worse: trend calls its steps regressions, asv names none
                    self.assertTrue(all(s[2] for s in t if s[3]))
                    self.assertEqual(areg, [])

    def test_a_regression_a_later_step_undid_is_trends_alone(self):
        for h, cid, metric, higher, j, c in self.each({"fixed"}):
            with self.subTest(history=h.name, config=cid, metric=metric):
                t = self.trend_steps(j, c, metric)
                a, areg = self.asv_of(h, cid, metric)
                self.assertEqual(len(t), 2, t)
                self.assertEqual(len(a), 2, a)
                for k, nt, na in zip(h.planted, [s[0] for s in t], a):  # both see both steps, on the same nights
                    self.assertLessEqual(abs(nt - k), 1)
                    self.assertLessEqual(abs(na - k), 1)
                self.assertEqual([s[2] for s in t], [True, False])  # trend: the first was a regression
                self.assertEqual(areg, [])  # asv: nothing to report, the latest night is as good as ever


if __name__ == "__main__":
    version, why = pytool("asv", "asv.step_detect")
    if why:
        skip_process(why)
    unittest.main(verbosity=2)
