"""trend.html of a real nightly history in headless Chromium: eight nights of one small sweep, the
last four planted 20% slower, with tonight's compare and the baseline. The page loads without a
console error, and what changed (tonight's verdicts and the steps, a regression first) is drawn
above the first chart. Exits 77 (ctest: skipped) when Chromium is not installed."""
import os
import unittest

from cdp import Browser, find_chromium
from ringbench_test import ARTIFACT_DIR, read_json, run, scale_timing, skip_process, tempdir, write_json

if find_chromium() is None:
    skip_process("chromium is not installed (apt-get install chromium)")

PROBE = """(() => {
  const top = el => el ? el.getBoundingClientRect().top + window.scrollY : null;
  const changed = document.getElementById('what-changed');
  const firstChart = document.querySelector('svg.rbt-chart');
  const tables = Array.from(document.querySelectorAll('#what-changed table.rbt-top'));
  const steps = tables.length ? tables[tables.length - 1].querySelectorAll('tr') : [];
  return {changedTop: top(changed), chartTop: top(firstChart),
          tonight: Array.from(document.querySelectorAll('#what-changed h3')).some(h => h.textContent.startsWith('Tonight')),
          firstStep: steps.length > 1 ? steps[1].textContent : '',
          firstStepIsRegression: steps.length > 1 && steps[1].classList.contains('rbt-regression'),
          charts: document.querySelectorAll('svg.rbt-chart').length};
})()"""


def scaled(doc, factor, sha):
    doc = scale_timing(doc, factor)
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
            hist = os.path.join(d, "hist")
            os.makedirs(hist)
            for night in range(1, 9):
                write_json(os.path.join(hist, f"2024-05-{night:02}.json"),
                           scaled(doc, 1.2 if night >= 5 else 1.0, f"sha{night}"))
            base = os.path.join(hist, "2024-05-01.json")
            cmp_json = os.path.join(d, "compare.json")
            p = run("compare", base, os.path.join(hist, "2024-05-08.json"), "--json-out", cmp_json)
            self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)  # SLOWER or, on a noisy VM, NOISY
            page = os.path.join(d, "trend.html")
            p = run("trend", hist, "-o", page, "--compare", cmp_json, "--baseline", base)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("REGRESSION", p.stderr)
            self.assertIn("sha4..sha5", p.stderr)

            browser = Browser(width=1280, height=900)
            try:
                browser.load(page, scripts=True)
                probe = browser.evaluate(PROBE)
                self.assertEqual(browser.errors, [])
                os.makedirs(ARTIFACT_DIR, exist_ok=True)
                browser.screenshot(os.path.join(ARTIFACT_DIR, "trend.png"))
            finally:
                browser.close()
            self.assertIsNotNone(probe["changedTop"])
            self.assertIsNotNone(probe["chartTop"])
            self.assertLess(probe["changedTop"], probe["chartTop"])
            self.assertTrue(probe["tonight"])
            self.assertTrue(probe["firstStepIsRegression"], probe["firstStep"])
            self.assertIn("2024-05-05", probe["firstStep"])
            self.assertGreater(probe["charts"], 0)


if __name__ == "__main__":
    unittest.main()
