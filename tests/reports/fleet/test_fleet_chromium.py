"""The fleet page of a planted fleet in headless Chromium: 32 nodes built from one real cpu-backend run
(fleet_fixture.py), one node 8% slower and one node with a GPU (a rank) at half the comm bandwidth,
judged by `ringbench fleet --html`. The page loads without a console error; it draws one strip chart
per metric with a point for every node; the slow node and the weak GPU (its node and shortened UUID)
are named in the charts, every name inside its chart; the nodes' table opens with the two outliers;
and the charts fit a 1400 px wide window. A screenshot is kept in $RINGBENCH_ARTIFACT_DIR. Exits 77
(ctest: skipped) when Chromium is not installed."""
import json
import os
import unittest

from cdp import Browser, find_chromium
from fleet_fixture import build_fleet
from ringbench_test import ARTIFACT_DIR, run, skip_process, tempdir

if find_chromium() is None:
    skip_process("chromium is not installed (apt-get install chromium)")

WIDTH = 1400

PROBE = """(() => {
  const box = el => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top,
                                                                     bottom: r.bottom, width: r.width}; };
  const charts = Array.from(document.querySelectorAll('figure.strip')).map(f => {
    const svg = f.querySelector('svg');
    return {metric: f.dataset.metric, svg: box(svg),
            nodes: Array.from(f.querySelectorAll('circle.pt.node')).map(c => c.dataset.node),
            gpus: f.querySelectorAll('circle.pt.gpu').length,
            untitled: Array.from(f.querySelectorAll('circle.pt')).filter(c => !c.querySelector('title')).length,
            bands: f.querySelectorAll('rect.band').length,
            labels: Array.from(f.querySelectorAll('text.olabel')).map(t => ({text: t.textContent, box: box(t)}))};
  });
  const rows = Array.from(document.querySelectorAll('#nodes-table tbody tr'))
      .map(tr => ({node: tr.dataset.node, outlier: tr.classList.contains('outlier')}));
  return {charts, rows, verdict: document.getElementById('verdict').textContent,
          outliers: Array.from(document.querySelectorAll('#outliers ul.outliers > li')).map(li => li.dataset.node),
          innerWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth};
})()"""


class FleetPageInChromium(unittest.TestCase):
    def test_planted_fleet_page(self):
        with tempdir() as d:
            nodes = os.path.join(d, "nodes")
            planted = build_fleet(nodes)
            page = os.path.join(d, "fleet.html")
            p = run("fleet", nodes, "--html", page, "--json")
            self.assertEqual(p.returncode, 1, p.stderr)  # outliers found
            report = json.loads(p.stdout)
            browser = Browser(width=WIDTH, height=900)
            try:
                browser.load(page, scripts=True)
                probe = browser.evaluate(PROBE)
                self.assertEqual(browser.errors, [])
                os.makedirs(ARTIFACT_DIR, exist_ok=True)
                shot = browser.screenshot(os.path.join(ARTIFACT_DIR, "fleet.png"))
            finally:
                browser.close()
        with open(shot, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

        slow, weak, uuid = planted["slow_node"], planted["weak_gpu_node"], planted["weak_gpu_uuid"]
        hosts = sorted(f"node-{i:02d}" for i in range(32))
        # One chart per metric, in the report's order, a point for every node in each.
        self.assertEqual([c["metric"] for c in probe["charts"]], [m["name"] for m in report["metrics"]])
        self.assertGreaterEqual(len(probe["charts"]), 2)
        for c in probe["charts"]:
            self.assertEqual(sorted(c["nodes"]), hosts, c["metric"])
            self.assertEqual(c["untitled"], 0, c["metric"])
            self.assertEqual(c["bands"], 2 if c["gpus"] else 1, c["metric"])
        by_metric = {c["metric"]: c for c in probe["charts"]}
        self.assertGreater(by_metric["comm_bandwidth"]["gpus"], 32, "every node's GPUs are drawn")

        # The slow node is named on pass time; the weak GPU on comm bandwidth, by node and short UUID.
        self.assertIn(slow, [label["text"] for label in by_metric["pass_time"]["labels"]])
        weak_labels = [label["text"] for label in by_metric["comm_bandwidth"]["labels"]]
        self.assertIn(f"{weak} · {uuid[:12]}…", weak_labels)
        for c in probe["charts"]:
            for label in c["labels"]:  # inside its chart, not cut off at an edge
                self.assertGreaterEqual(label["box"]["left"], c["svg"]["left"], label)
                self.assertLessEqual(label["box"]["right"], c["svg"]["right"] + 0.5, label)
                self.assertGreaterEqual(label["box"]["top"], c["svg"]["top"], label)
                self.assertLessEqual(label["box"]["bottom"], c["svg"]["bottom"] + 0.5, label)

        # The header's verdict, the outliers list, and the table opening with the two planted nodes.
        self.assertEqual(probe["verdict"], "2 outliers among 32 nodes")
        self.assertEqual(sorted(probe["outliers"]), sorted([slow, weak]))
        self.assertEqual(len(probe["rows"]), 32)
        self.assertEqual(sorted(r["node"] for r in probe["rows"][:2]), sorted([slow, weak]))
        self.assertTrue(all(r["outlier"] for r in probe["rows"][:2]))
        self.assertFalse(any(r["outlier"] for r in probe["rows"][2:]))
        self.assertEqual([r["node"] for r in probe["rows"]], [n["node"]["hostname"] for n in report["nodes"]])

        # Everything fits the window: no chart wider than it, no sideways scrolling.
        self.assertEqual(probe["innerWidth"], WIDTH)
        self.assertLessEqual(probe["scrollWidth"], WIDTH)
        for c in probe["charts"]:
            self.assertGreaterEqual(c["svg"]["left"], 0, c["metric"])
            self.assertLessEqual(c["svg"]["right"], WIDTH, c["metric"])
            self.assertGreater(c["svg"]["width"], 0.6 * WIDTH, c["metric"])


if __name__ == "__main__":
    unittest.main()
