"""The report answers a sweep's questions at a glance (issue 32, part 4), checked in headless Chromium at
1400 px on the report of a real small cpu sweep: the summary's key columns are inside the viewport
once the summary is scrolled to the top (the first screen is the strategies section since issue 55:
test_report_strategies_chromium.py), without scrolling the page sideways, the configuration column
stays pinned while the table scrolls sideways, "fastest at each c" names the split the results say,
timeline bars are drawn at least 2 px wide, a one-S sweep draws bars, and the shared-CPU warning shows
exactly when the file says ranks outnumbered the CPUs. Screenshots are kept in $RINGBENCH_ARTIFACT_DIR
(report-glance-1400.png: the first screen; report-glance-summary-1400.png: the summary's screen;
report-glance-full.png: the page). Exits 77 (ctest: skipped) when Chromium is not installed."""
import os
import sys
import unittest

from cdp import Browser, find_chromium
from ringbench_test import ARTIFACT_DIR, read_json, report_sweep, run, skip_process, sweep, tempdir

if find_chromium() is None:
    skip_process("chromium is not installed (apt-get install chromium)")

WIDTH, HEIGHT = 1400, 900
# The cpu backend's rates read in GFLOP/s (common/flops_unit.hpp).
KEY_COLUMNS = ["configuration", "status", "error", "median ms", "GFLOP/s per GPU", "exposed comm ms",
               "exposed % of pass", "overlap", "imbalance"]

# Each key heading and the first body row's cell under it: where they are drawn, in viewport pixels.
COLUMNS = """(() => {
  const t = document.getElementById('summary-table');
  const heads = Array.from(t.tHead.rows[0].cells);
  const row = t.tBodies[0].rows[0];
  const box = el => { const r = el.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; };
  return {page: [document.documentElement.scrollWidth, innerWidth, scrollX],
          heads: heads.map(h => [h.textContent.replace(/[\\u25B2\\u25BC]/g, '').trim(), box(h),
                                 box(row.cells[h.cellIndex])])};
})()"""


def artifact(name):
    os.makedirs(ARTIFACT_DIR, exist_ok=True)
    return os.path.join(ARTIFACT_DIR, name)


def cpus_of(run_doc, host):
    """The CPUs a cpu run's ranks ran on, as the report reads them (reports/html/report_runs.cpp)."""
    if run_doc["config"]["backend"] != "cpu":
        return 0
    places = run_doc.get("placement") or []
    if places and all(p["device"].startswith("cpu ") for p in places):
        return len({(p["host"], p["device"]) for p in places})
    return host.get("cpu_threads") or 0


class GlanceInChromium(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.results = report_sweep(os.path.join(cls.tmp.name, "res"))
        cls.doc = read_json(cls.results)
        cls.html = os.path.join(cls.tmp.name, "res", "report.html")
        # One S over c = 1, 2, 4: the time chart is bars.
        one_s = sweep(os.path.join(cls.tmp.name, "one-s"), repeats=2,
                      shape=["--seq", "96", "--cp", "1,2,4", "--split", "contiguous,zigzag", "--variant", "ring",
                             "--heads", "4", "--kv-heads", "2", "--head-dim", "16", "--dtype", "float64"])
        cls.one_s_html = os.path.join(os.path.dirname(one_s), "report.html")
        cls.browser = Browser(width=WIDTH, height=HEIGHT)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.tmp.cleanup()

    def load(self, html):
        self.browser.errors.clear()
        self.browser.load(html)
        self.browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def test_key_columns_fit_at_1400_px_and_the_configuration_stays_pinned(self):
        self.load(self.html)
        self.assertEqual(self.browser.evaluate("innerWidth"), WIDTH)
        shot = self.browser.screenshot(artifact("report-glance-1400.png"), full_page=False)
        print(f"\nscreenshot: {shot}", file=sys.stderr)
        # The page opens on the strategies; the summary is the screen a reader scrolls to next.
        self.browser.evaluate("document.getElementById('summary').scrollIntoView()")
        cols = self.browser.evaluate(COLUMNS)
        page_width, inner, scroll_x = cols["page"]
        self.assertLessEqual(page_width, inner, "the page itself scrolls sideways")
        self.assertEqual(scroll_x, 0)
        where = {name: (head, cell) for name, head, cell in cols["heads"]}
        for name in KEY_COLUMNS:
            self.assertIn(name, where)
            head, cell = where[name]
            for box in (head, cell):
                self.assertGreaterEqual(box[0], 0, name)
                self.assertLessEqual(box[1], WIDTH, f"{name} is cut off at {box[1]:.0f} px")
            self.assertLessEqual(head[3], HEIGHT, f"{name}: the heading is below the summary's screen")
            self.assertLess(cell[2], HEIGHT, f"{name}: the first row is below the summary's screen")
        self.assertLess(where["error"][1][0], where["median ms"][1][0])  # in the order a reader looks
        self.browser.screenshot(artifact("report-glance-summary-1400.png"), full_page=False)
        self.browser.screenshot(artifact("report-glance-full.png"))

        # Scroll the table to its far right: the configuration column stays where it was.
        state = self.browser.evaluate("""(() => {
          const box = document.getElementById('summary-scroll'), pin = document.querySelector('#summary-table td.pin');
          const before = pin.getBoundingClientRect().left;
          box.scrollLeft = box.scrollWidth;
          const heads = Array.from(document.querySelectorAll('#summary-table thead th'));
          const last = heads[heads.length - 1].getBoundingClientRect();
          return {overflow: box.scrollWidth > box.clientWidth, scrolled: box.scrollLeft, before,
                  after: pin.getBoundingClientRect().left, lastRight: last.right,
                  boxRight: box.getBoundingClientRect().right, pageScroll: scrollX};
        })()""")
        self.assertTrue(state["overflow"], "this sweep's table is wider than the page: it must scroll inside its box")
        self.assertGreater(state["scrolled"], 0)
        self.assertAlmostEqual(state["after"], state["before"], delta=1)
        self.assertLessEqual(state["lastRight"], state["boxRight"] + 1)  # the last column came into view
        self.assertEqual(state["pageScroll"], 0)
        self.assertEqual(self.browser.errors, [])

    def test_shared_columns_are_one_line_above_the_table(self):
        self.load(self.html)
        line = self.browser.evaluate("document.getElementById('summary-common').textContent")
        self.assertEqual(line, "all rows: H=4/2, D=16, causal, float64, cpu, local")
        heads = self.browser.evaluate("Array.from(document.querySelectorAll('#summary-table thead th'))"
                                      ".map(h => h.textContent)")
        for gone in ("H", "D", "dtype", "backend", "transport"):
            self.assertNotIn(gone, heads)

    def test_fastest_at_each_c_names_what_the_results_say(self):
        self.load(self.html)
        rows = self.browser.evaluate("""Array.from(document.querySelectorAll('#best table.best')).flatMap(t =>
          Array.from(t.tBodies[0].rows).map(r => [Number(t.dataset.seq), Number(r.dataset.c),
                                                  r.querySelector('td.best').textContent]))""")
        want = {}
        for r in self.doc["runs"]:
            med = (r.get("timing") or {}).get("median_ms")
            if r["status"] != "ok" or med is None or r.get("alias_of"):
                continue
            c = r["config"]
            key = (c["seq"], c["cp"])
            cand = (med, c["split"], c["variant"])
            want[key] = min(want.get(key, cand), cand)
        self.assertEqual(len(rows), len(want))
        self.assertEqual(sorted((s, c) for s, c, _ in rows), sorted(want))
        for seq, c, name in rows:
            _, split, variant = want[(seq, c)]
            self.assertEqual(name, f"{split} {variant}", (seq, c))

    def test_timeline_bars_are_at_least_two_pixels_with_hover_text(self):
        self.load(self.html)
        bars = self.browser.evaluate("""Array.from(document.querySelectorAll('details.tl[open] rect.bar')).map(b =>
          [b.getBoundingClientRect().width, b.querySelector('title').textContent])""")
        self.assertGreater(len(bars), 0)
        self.assertGreaterEqual(min(w for w, _ in bars), 2 - 0.01)
        for _, title in bars:
            self.assertRegex(title, r"^r\d+ \S+.*\nbegin [0-9.]+ ms, end [0-9.]+ ms, duration [0-9.]+ ms")
        self.assertTrue(any("bytes" in t for _, t in bars if "kv_" in t), "a transfer says how many bytes")

    def test_one_s_draws_bars(self):
        self.load(self.one_s_html)
        chart = self.browser.evaluate("""(() => {
          const f = document.getElementById('time-chart-0');
          const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
          return {bars: Array.from(f.querySelectorAll('rect.bar')).filter(visible).length,
                  lines: f.querySelectorAll('path.ln').length};
        })()""")
        self.assertEqual(chart["lines"], 0)
        self.assertEqual(chart["bars"], 6)  # c = 1, 2, 4 by two splits
        self.assertEqual(self.browser.errors, [])

    def test_shared_cpu_warning_shows_exactly_when_ranks_outnumber_cpus(self):
        self.load(self.html)
        host = self.doc.get("host") or {}
        shared = sorted({(r["config"]["cp"], cpus_of(r, host)) for r in self.doc["runs"]
                         if r["status"] == "ok" and 0 < cpus_of(r, host) < r["config"]["cp"]})
        warnings = self.browser.evaluate("""Array.from(document.querySelectorAll('.cpu-shared')).map(w =>
          [w.closest('section').id, w.textContent, w.getBoundingClientRect().height > 0 || !!w.closest('details:not([open])')])""")
        if not shared:
            self.assertEqual(warnings, [], "no run had more ranks than CPUs")
            return
        c, cpus = shared[-1]
        which = f"c = {c} ranks on {cpus} CPU{'' if cpus == 1 else 's'}"
        sections = {s for s, t, _ in warnings
                    if t.startswith("\u26a0 ranks shared CPUs: ") and which in t
                    and "per-rank times include waiting for a core." in t}
        for s in ("summary", "best", "rank-bars", "overlap"):
            self.assertIn(s, sections)
        self.assertTrue(all(shown for _, _, shown in warnings))


if __name__ == "__main__":
    unittest.main()
