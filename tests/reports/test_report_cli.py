"""`ringbench report` end to end: it renders real results (results.json or the results.jsonl of an
unfinished sweep), writes beside the results or where -o says, and refuses what it cannot read (an
unknown major version, a foreign schema, malformed JSON) with exit 2 and a message naming the rule."""
import os
import re
import unittest

from ringbench_test import read_json, report_sweep, run, tempdir, write_json


class ReportCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.results = report_sweep(os.path.join(cls.tmp.name, "res"))
        cls.doc = read_json(cls.results)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_writes_report_beside_the_results(self):
        p = run("report", self.results)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = os.path.join(os.path.dirname(self.results), "report.html")
        self.assertIn("report: " + os.path.abspath(out), p.stdout)
        with open(out, encoding="utf-8") as f:
            html = f.read()
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        self.assertTrue(html.rstrip().endswith("</html>"))
        for r in self.doc["runs"]:
            self.assertIn(r["config"]["id"], html)
        skipped = [r for r in self.doc["runs"] if r["status"] == "skipped"]
        self.assertTrue(skipped)
        self.assertIn(f"0 failed, {len(skipped)} skipped.", html)
        # No resource is fetched: no src, no stylesheet link, no URL but the schema's own text.
        self.assertNotRegex(html, r"\ssrc=|<link|https?://")

    def test_output_flag_and_title(self):
        with tempdir() as d:
            out = os.path.join(d, "sub", "r.html")
            p = run("report", self.results, "-o", out, "--title", "nightly <x>")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out, encoding="utf-8") as f:
                html = f.read()
            self.assertIn("<title>nightly &lt;x&gt;</title>", html)

    def test_timeline_flags(self):
        ids = [r["config"]["id"] for r in self.doc["runs"] if r.get("timeline")]
        self.assertGreater(len(ids), 3)
        with tempdir() as d:
            out = os.path.join(d, "r.html")
            p = run("report", self.results, "-o", out, "--max-timelines", "1", "--timeline", ids[-1])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out, encoding="utf-8") as f:
                html = f.read()
            self.assertEqual(len(re.findall(r'<details class="tl"', html)), 2)
            self.assertIn(f'data-run="{ids[-1]}"', html)
            p = run("report", self.results, "-o", out, "--timeline", "no-such-configuration")
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("--timeline", p.stderr)

    def test_samples_section_draws_each_samples_clock(self):
        with open(os.path.join(os.path.dirname(self.results), "report.html"), encoding="utf-8") as f:
            self.assertIn("No run read a per-sample SM clock", f.read())  # CPU runs read none
        doc = read_json(self.results)
        ok = [i for i, r in enumerate(doc["runs"]) if r["status"] == "ok"]
        cold, steady = ok[0], ok[1]
        # As a GPU run records it (results 1.2.0): a cold first sample at idle clocks, dropped.
        doc["runs"][cold]["sm_clock"] = {
            "method": "clock64 over %globaltimer", "nominal_mhz": 1980.0, "threshold_pct": 75,
            "threshold_mhz": 1485.0, "recovery_ms": 50, "samples_ms": [3.5, 1.2, 1.21, 1.19],
            "samples_mhz": [345.0, 1980.0, 1965.0, None], "dropped": [0], "dropped_count": 1, "taken": 4}
        doc["runs"][steady]["sm_clock"] = dict(doc["runs"][cold]["sm_clock"], samples_mhz=[1980.0] * 4,
                                               dropped=[], dropped_count=0)
        with tempdir() as d:
            path, out = os.path.join(d, "results.json"), os.path.join(d, "r.html")
            write_json(path, doc)
            p = run("report", path, "-o", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out, encoding="utf-8") as f:
                html = f.read()
        section = html[html.index('<section id="samples">'):]
        section = section[:section.index("</section>")]
        self.assertNotIn("Not measured", section)
        # The configuration that dropped samples comes first, and says how many.
        self.assertLess(section.index(f'id="samples-{cold}"'), section.index(f'id="samples-{steady}"'))
        self.assertIn("1 of 4 samples dropped", section)
        self.assertIn("threshold 1485 MHz", section)
        self.assertIn("sample 1: 345 MHz (dropped)", section)
        self.assertIn("sample 1: 3.5 ms (dropped)", section)
        self.assertNotIn("sample 4: ", section.split("SM clock per sample")[1].split("</figure>")[0])  # unread

    def test_renders_a_results_jsonl(self):
        with tempdir() as d:
            out = os.path.join(d, "r.html")
            p = run("report", os.path.join(os.path.dirname(self.results), "results.jsonl"), "-o", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(os.path.getsize(out) > 1000)

    def test_unknown_major_version_is_refused(self):
        with tempdir() as d:
            bad = os.path.join(d, "results.json")
            doc = dict(self.doc, schema_version="3.0.0")
            write_json(bad, doc)
            p = run("report", bad)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn("schema_version", p.stderr)
            self.assertIn("3.0.0", p.stderr)
            self.assertRegex(p.stderr, r"major versions 0 to 2")
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "report.html")))

    def test_a_newer_minor_version_is_read(self):
        with tempdir() as d:
            newer = os.path.join(d, "results.json")
            doc = dict(self.doc, schema_version="2.9.3", added_later={"x": 1})
            write_json(newer, doc)
            p = run("report", newer)
            self.assertEqual(p.returncode, 0, p.stderr)

    def test_bad_files_are_bad_input(self):
        with tempdir() as d:
            foreign = os.path.join(d, "foreign.json")
            write_json(foreign, dict(self.doc, schema="other.results"))
            malformed = os.path.join(d, "malformed.json")
            with open(malformed, "w") as f:
                f.write('{"schema": "ringbench.results", "runs": [')
            for path, pattern in ((foreign, r"/schema.*ringbench\.results"), (malformed, r"valid JSON"),
                                  (os.path.join(d, "missing.json"), r"missing\.json")):
                with self.subTest(path):
                    p = run("report", path)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertRegex(p.stderr, pattern)

    def test_text_from_the_file_is_escaped(self):
        with tempdir() as d:
            doc = read_json(self.results)
            was = doc["runs"][0]["config"]["id"]
            doc["runs"][0]["config"]["id"] = "<script>alert(1)</script>"
            for r in doc["runs"]:  # its aliases name it by its new id, or the reader refuses them
                if r.get("alias_of") == was:
                    r["alias_of"] = doc["runs"][0]["config"]["id"]
            skipped = next(r for r in doc["runs"] if r["status"] == "skipped")
            skipped["reason"] = "<img src=x onerror=alert(2)>"
            doc["tool"]["command_line"] = "ringbench run \"</td><script>alert(3)</script>"
            path = os.path.join(d, "results.json")
            write_json(path, doc)
            p = run("report", path)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(d, "report.html"), encoding="utf-8") as f:
                html = f.read()
            self.assertNotIn("<script>alert", html)
            self.assertNotIn("<img", html)
            self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;", html)
            self.assertEqual(html.count("<script>"), 1)


if __name__ == "__main__":
    unittest.main()
