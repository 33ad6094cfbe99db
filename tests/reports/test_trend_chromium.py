"""trend.html of a real nightly history in headless Chromium: eight nights of one small sweep, the
last four planted 20% slower and the machine probe 30% slower with them, with tonight's compare and
the baseline. The page loads without a console error; tonight's commit and the baseline's stand at
the top, then the sentence naming night 5, its commit range and the probe's step; the probe's own
chart and what changed (tonight's verdicts and the steps, a regression first) are drawn above the
first configuration's chart. Exits 77 (ctest: skipped) when Chromium is not installed."""
import os
import unittest

from cdp import Browser, find_chromium
from ringbench_test import ARTIFACT_DIR, read_json, run, scale_timing, skip_process, tempdir, write_json

if find_chromium() is None:
    skip_process("chromium is not installed (apt-get install chromium)")

PROBE = """(() => {
  const top = el => el ? el.getBoundingClientRect().top + window.scrollY : null;
  const changed = document.getElementById('what-changed');
  const firstChart = document.querySelector('.rbt-cfg svg.rbt-chart');
  const commits = document.querySelector('.rb-trend .rbt-commits');
  const sentence = document.querySelector('#what-changed .rbt-changes li');
  const probeChart = document.querySelector('#machine-probe svg.rbt-chart');
  const tables = Array.from(document.querySelectorAll('#what-changed table.rbt-top'));
  const steps = tables.length ? tables[tables.length - 1].querySelectorAll('tr') : [];
  return {changedTop: top(changed), chartTop: top(firstChart), commitsTop: top(commits),
          commits: commits ? commits.textContent : '', sentenceTop: top(sentence),
          sentence: sentence ? sentence.textContent : '', probeTop: top(probeChart),
          tonight: Array.from(document.querySelectorAll('#what-changed h3')).some(h => h.textContent.startsWith('Tonight')),
          firstStep: steps.length > 1 ? steps[1].textContent : '',
          firstStepIsRegression: steps.length > 1 && steps[1].classList.contains('rbt-regression'),
          charts: document.querySelectorAll('svg.rbt-chart').length};
})()"""


def scaled(doc, factor, probe_factor, sha):
    doc = scale_timing(doc, factor)
    for r in doc["runs"]:
        t = r.get("timing") or {}
        t["machine_probe_ms"] = [x * probe_factor for x in t.get("machine_probe_ms", [])]
    doc["tool"]["git_sha"] = sha
    return doc


class TrendInChromium(unittest.TestCase):
    def test_what_changed_leads_the_page(self):
        with tempdir() as d:
            out = os.path.join(d, "run")
            p = run("run", "--seq", "128", "--cp", "1,2", "--split", "zigzag", "--heads", "2", "--kv-heads", "1",
                    "--head-dim", "16", "--repeats", "8", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = read_json(os.path.join(out, "results.json"))
            self.assertTrue(all(r["timing"].get("machine_probe_ms") for r in doc["runs"]), "a CPU run carries a probe")
            hist = os.path.join(d, "hist")
            os.makedirs(hist)
            for night in range(1, 9):
                write_json(os.path.join(hist, f"2024-05-{night:02}.json"),
                           scaled(doc, 1.2 if night >= 5 else 1.0, 1.3 if night >= 5 else 1.0, f"sha{night}"))
            base = os.path.join(hist, "2024-05-01.json")
            cmp_json = os.path.join(d, "compare.json")
            p = run("compare", base, os.path.join(hist, "2024-05-08.json"), "--json-out", cmp_json)
            self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)  # SLOWER or, on a noisy VM, NOISY
            page = os.path.join(d, "trend.html")
            p = run("trend", hist, "-o", page, "--compare", cmp_json, "--baseline", base)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("REGRESSION", p.stderr)
            self.assertIn("sha4..sha5", p.stderr)
            lines = p.stderr.splitlines()
            self.assertEqual(lines[1], "ringbench: Tonight's commit sha8 (night 2024-05-08); the baseline's sha1.")
            self.assertEqual(lines[2], "ringbench: 2 of 2 configurations became +20% slower between sha4 and sha5 "
                                       "(night 2024-05-05; the machine probe stepped +30% the same night).")

            browser = Browser(width=1280, height=900)
            try:
                browser.load(page, scripts=True)
                probe = browser.evaluate(PROBE)
                self.assertEqual(browser.errors, [])
                os.makedirs(ARTIFACT_DIR, exist_ok=True)
                browser.screenshot(os.path.join(ARTIFACT_DIR, "trend.png"))
            finally:
                browser.close()
            for k in ("changedTop", "chartTop", "commitsTop", "sentenceTop", "probeTop"):
                self.assertIsNotNone(probe[k], k)
            self.assertLess(probe["commitsTop"], probe["sentenceTop"])
            self.assertLess(probe["sentenceTop"], probe["probeTop"])
            self.assertLess(probe["probeTop"], probe["chartTop"])
            self.assertLess(probe["changedTop"], probe["chartTop"])
            self.assertIn("sha8", probe["commits"])
            self.assertIn("baseline's sha1", probe["commits"])
            self.assertIn("between sha4 and sha5 (night 2024-05-05; the machine probe stepped +30%", probe["sentence"])
            self.assertTrue(probe["tonight"])
            self.assertTrue(probe["firstStepIsRegression"], probe["firstStep"])
            self.assertIn("2024-05-05", probe["firstStep"])
            self.assertGreater(probe["charts"], 0)


if __name__ == "__main__":
    unittest.main()
