"""Hostile input, round three (issue 28), speed and memory: the readers of traces, results files and
profiles parse in linear time and build no more than their limits allow, refusing early with exit 2
and one line; a report over a record of any size draws what one chart can hold and says so.

Every input is made here. Memory is the child's peak resident set (ru_maxrss), which a loaded
machine does not change; no assertion here reads a clock."""
import gzip
import json
import os
import unittest

from ringbench_test import SANITIZED, TinySweepCase, read_json, run, run_measured, write_json

def kernel_events(n):
    return ",".join(
        '{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":%d,"ts":%d,"dur":3}' % (i % 7, 7 + i % 4, i * 4)
        for i in range(n))


class HostileParse(TinySweepCase, unittest.TestCase):
    def path(self, name):
        return os.path.join(self.d, name)

    def write(self, name, text, mode="w"):
        with open(self.path(name), mode) as f:
            f.write(text)
        return self.path(name)

    def assert_refused(self, argv, names, untouched=()):
        before = {p: os.stat(p).st_mtime_ns for p in untouched}
        p = run(*argv)
        self.assertEqual(p.returncode, 2, f"{argv}: {p.stdout[-500:]}{p.stderr[-500:]}")
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        for n in names:
            self.assertIn(n, lines[0])
        self.assertLess(len(lines[0]), 400, lines[0])
        for path, mtime in before.items():
            self.assertEqual(os.stat(path).st_mtime_ns, mtime, f"{argv} changed {path}")
        return lines[0]

    def test_refusals_name_the_file_the_place_and_the_rule(self):
        origin_max = ('{"otherData": {"producer": "ringbench", "origin_ns": 9223372036854775807}, "traceEvents": '
                      '[{"ph": "X", "name": "a", "ts": 5, "dur": 1, "pid": 0, "args": {"kind": "comm"}}]}')
        cases = [
            # (what, argv builder, substrings of the one stderr line)
            ("an array of 1 MB of {} (quadratic before)", lambda: ["analyze", self.write("objs.json", "[" + ",".join(["{}"] * 500000) + "]")],
             ["objs.json#/0/ph"]),
            ("ts + dur past int64 ns", lambda: ["analyze", self.write("dur.json", '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 9e15, "dur": 9e15}]}')],
             ["dur.json#/traceEvents/0/dur", "int64"]),
            ("origin_ns at INT64_MAX", lambda: ["analyze", self.write("origin.json", origin_max)],
             ["origin.json#/traceEvents/0/ts", "origin_ns"]),
            ("a NUL byte in a trace", lambda: ["analyze", self.write("nul.json", '{"traceEvents": [\0]}')],
             ["nul.json: byte 18", "NUL byte"]),
            ("a NUL byte in a profile", lambda: ["run", self.write("nul-profile.json", '{"name": "x",\0 "sweep": {}}'), "--out", self.path("never")],
             ["nul-profile.json: byte 14", "NUL byte"]),
            ("a NUL byte in results", lambda: ["report", self.write("nul-results.json", '{"runs": []\0}'), "-o", self.path("never.html")],
             ["nul-results.json: byte 12", "NUL byte"]),
            ("more kept events than --max-trace-mb allows", lambda: ["analyze", "--max-trace-mb", "1",
                                                                     self.write("many.json", '{"traceEvents": [' + kernel_events(2100) + "]}")],
             ["many.json#/traceEvents/2048", "raise --max-trace-mb"]),
        ]
        for what, argv, names in cases:
            with self.subTest(what):
                self.assert_refused(argv(), names, untouched=[self.results])
        self.assertFalse(os.path.exists(self.path("never")))
        self.assertFalse(os.path.exists(self.path("never.html")))

    def test_a_gzip_bomb_is_refused_in_bounded_memory(self):
        # 50 MB of `0,` in about 50 KB: it took 881 MB before; the first element is refused now.
        bomb = self.path("bomb.json.gz")
        with gzip.open(bomb, "wb") as g:
            g.write(b"[" + b"0," * 25_000_000 + b"0]")
        code, _, _, mb, _ = run_measured(["analyze", bomb])
        self.assertEqual(code, 2)
        self.assertLess(mb, 100, "peak RSS of analyze on the bomb")
        # The same bomb as an object array is read one event at a time: memory is what is kept.
        # Under a sanitizer peak RSS is not measured (run_measured), so a tenth of it shows the
        # reading alone, which at -O0 under ASan takes most of a minute at full size.
        events = 400_000 if SANITIZED else 4_000_000
        bomb2 = self.path("bomb2.json.gz")
        with gzip.open(bomb2, "wb") as g:
            g.write(b'{"traceEvents": [' + b'{"ph":"i"},' * events +
                    b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":3}]}')
        code, _, _, mb, _ = run_measured(["analyze", bomb2])
        self.assertEqual(code, 0)
        self.assertLess(mb, 100, "peak RSS of analyze over 44 MB of skipped events")

    # 8 Mi values parsed before the refusal: 47 of the sanitizer stage's CPU-seconds (issue 41), for a
    # peak-RSS bound a sanitizer's shadow memory makes meaningless (run_measured gives 0 there). The
    # ci stage runs it; the bounded reader meets hostile sizes under ASan in scripts/fuzz.sh.
    @unittest.skipIf(SANITIZED, "a memory bound; the ci stage runs it")
    def test_results_beyond_the_value_limit_are_refused_before_they_are_built(self):
        doc = read_json(self.results)
        text = json.dumps(doc)
        # 9 Mi sample values in one run: over the limit of 8 Mi values a document may hold.
        big = self.path("big-results.json")
        marker = '"samples_ms": ['
        at = text.index(marker) + len(marker)
        with open(big, "w") as f:
            f.write(text[:at] + "0," * (9 << 20) + text[at:])
        code, _, _, mb, _ = run_measured(["report", big, "-o", self.path("big.html")])
        self.assertEqual(code, 2)
        self.assertLess(mb, 600, "peak RSS before the refusal")
        self.assert_refused(["report", big, "-o", self.path("big.html")], ["big-results.json", "8388608 values"])
        self.assertFalse(os.path.exists(self.path("big.html")))

    def test_a_report_over_a_huge_timeline_draws_its_cap_and_says_so(self):
        doc = read_json(self.results)
        run0 = next(r for r in doc["runs"] if r.get("timeline"))
        template = run0["timeline"]["intervals"][0]
        # Under a sanitizer a tenth, still past the cap: the drawing is the same, the size is the
        # ci stage's to show (12 s at -O0 under ASan at full size).
        n = 10_000 if SANITIZED else 100_000
        run0["timeline"]["intervals"] = [dict(template, begin_ms=i * 1e-4, end_ms=i * 1e-4 + 5e-5)
                                         for i in range(n)]
        src = self.path("huge-timeline.json")
        write_json(src, doc)
        out = self.path("huge-timeline.html")
        p = run("report", src, "-o", out, "--timeline", run0["config"]["id"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            html = f.read()
        self.assertIn(f"Drawn: the first 4096 of the {n} intervals", html)
        self.assertLess(len(html), 8 << 20, "the page stays a size a browser opens")

    def test_a_trace_of_1e5_events_is_read_in_memory_near_its_size(self):
        # A memory bound, which a sanitizer's shadow memory voids (run_measured gives 0 there): under
        # one, a tenth of the events, for the reading alone.
        events = 10_000 if SANITIZED else 100_000
        trace = self.write("e5.json", '{"distributedInfo": {"rank": 0}, "traceEvents": [' + kernel_events(events) + "]}")
        size_mb = os.path.getsize(trace) / 1e6
        code, _, _, mb, _ = run_measured(["analyze", trace])
        self.assertEqual(code, 0)
        # About 7 bytes of memory a byte of input (docs/performance.md), above the binary's own ~12 MB.
        self.assertLess(mb, 20 + 12 * size_mb, f"peak RSS {mb:.0f} MB for {size_mb:.1f} MB of trace")


if __name__ == "__main__":
    unittest.main()
