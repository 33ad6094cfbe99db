"""`ringbench accept` end to end: a profile that passes (exit 0) and one that fails (exit 1), PASS/FAIL
per check with measured and required, JUnit XML that parses and names every check, --results,
the shipped profiles, and bad input (exit 2, naming file and JSON path)."""
import copy
import json
import os
import unittest
import xml.etree.ElementTree as ET

from ringbench_test import SOURCE_DIR, TINY, folder_state, read_json, run, tempdir, write_json

SWEEP = {"seq": [256, 512], "cp": [1, 2, 4], "split": ["contiguous", "zigzag"], "variant": "ring",
         "heads": 4, "kv_heads": 2, "head_dim": 16, "dtype": "float64", "repeats": 3}

PASSING = [
    {"name": "correctness", "metric": "correctness"},
    {"name": "zigzag balance", "metric": "work_imbalance", "max": 1.000001, "where": {"split": "zigzag"}},
    {"name": "throughput floor", "metric": "attention_tflops", "min": 1e-7},
]
FAILING = PASSING + [
    {"name": "impossible throughput", "metric": "attention_tflops", "min": 1e6},
    {"name": "contiguous balance", "metric": "work_imbalance", "max": 1.05, "where": {"split": "contiguous", "cp": [2, 4]}},
]


def profile(d, name, checks, sweep=SWEEP):
    return write_json(os.path.join(d, name + ".json"), {"name": name, "description": "test", "sweep": sweep, "checks": checks})


def junit_suites(path):
    root = ET.parse(path).getroot()  # raises on malformed XML
    assert root.tag == "testsuites", root.tag
    return {s.get("name"): s for s in root.findall("testsuite")}


class AcceptCli(unittest.TestCase):
    def test_passing_profile_exit_0_and_junit_names_every_check(self):
        with tempdir() as d:
            xml = os.path.join(d, "junit.xml")
            p = run("accept", profile(d, "pass", PASSING), "--out", os.path.join(d, "res"), "--junit", xml)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            for c in PASSING:
                self.assertRegex(p.stdout, rf"PASS\s+{c['name']}\s+measured .* required ")
            self.assertIn("PASS: 3 of 3 checks passed", p.stdout)
            suites = junit_suites(xml)
            self.assertEqual(set(suites), {c["name"] for c in PASSING})
            self.assertEqual(int(suites["correctness"].get("tests")), 12)  # every run of the sweep
            self.assertEqual(int(suites["zigzag balance"].get("tests")), 6)  # only zigzag runs
            for s in suites.values():
                self.assertEqual(s.get("failures"), "0")
                self.assertEqual(s.findall("testcase/failure"), [])

    def test_failing_profile_exit_1_with_measured_and_required(self):
        with tempdir() as d:
            xml = os.path.join(d, "junit.xml")
            p = run("accept", profile(d, "fail", FAILING), "--out", os.path.join(d, "res"), "--junit", xml)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertRegex(p.stdout, r"FAIL\s+impossible throughput\s+measured [0-9.e-]+ .*required >= 1000000")
            self.assertRegex(p.stdout, r"FAIL\s+contiguous balance\s+measured 1\.\d+ .*required <= 1.05")
            self.assertRegex(p.stdout, r"PASS\s+correctness")
            self.assertIn("FAIL: 3 of 5 checks passed", p.stdout)
            suites = junit_suites(xml)
            self.assertEqual(set(suites), {c["name"] for c in FAILING})
            self.assertEqual(int(suites["impossible throughput"].get("failures")), 12)
            self.assertEqual(int(suites["contiguous balance"].get("failures")), 4)
            failure = suites["contiguous balance"].find("testcase/failure")
            self.assertIn("required <= 1.05", failure.get("message"))
            # --results evaluates the same file again without running anything.
            res = os.path.join(d, "res", "results.json")
            p2 = run("accept", profile(d, "fail", FAILING), "--results", res, "--json")
            self.assertEqual(p2.returncode, 1, p2.stderr)
            out = json.loads(p2.stdout)
            self.assertEqual([c["pass"] for c in out["checks"]], [True, True, True, False, False])
            self.assertEqual(p2.stderr, "")  # no sweep ran

    def test_cpu_acceptance_profile_passes(self):
        with tempdir() as d:
            xml = os.path.join(d, "junit.xml")
            p = run("accept", os.path.join(SOURCE_DIR, "profiles", "acceptance-cpu.json"), "--out", os.path.join(d, "r"),
                    "--junit", xml)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            names = [c["name"] for c in read_json(os.path.join(SOURCE_DIR, "profiles", "acceptance-cpu.json"))["checks"]]
            self.assertEqual(set(junit_suites(xml)), set(names))

    def test_gpu_profiles_are_valid(self):
        # Without the cuda backend they cannot run, but they must parse: evaluated against CPU results
        # their checks fail (exit 1), never exit 2.
        with tempdir() as d:
            res = os.path.join(d, "r")
            self.assertEqual(run("run", "--seq", "64", "--cp", "1", "--split", "contiguous", "--heads", "2",
                                 "--kv-heads", "1", "--head-dim", "8", "--repeats", "1", "--out", res).returncode, 0)
            for name in ("acceptance-h100.json", "acceptance-h200.json", "gpu-check.json"):
                with self.subTest(name):
                    p = run("accept", os.path.join(SOURCE_DIR, "profiles", name), "--results",
                            os.path.join(res, "results.json"))
                    self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                    self.assertIn("FAIL", p.stdout)
            for name in ("nightly.json", "llama3-405b-cp16.json", "acceptance-h100.json", "gpu-short.json",
                         "gpu-check.json"):
                with self.subTest(name):
                    doc = read_json(os.path.join(SOURCE_DIR, "profiles", name))
                    self.assertEqual(doc["sweep"]["backend"], "cuda")
                    self.assertEqual(doc["sweep"]["dtype"], "bfloat16")

    def test_an_h200_file_of_format_030_is_judged_per_gpu_and_nvlink_is_na(self):
        """The first H200 run, as format 0.3.0 stored it (attention_tflops summed over 8 virtual ranks,
        1297 and 1458): accept converts on read, so the per-GPU floor sees 162 and 182, and the NVLink
        check of copies that never left the GPU is N/A, never PASS (it passed at 2.333 before)."""
        fixture = os.path.join(SOURCE_DIR, "tests", "data", "results-0.3.0-h200.json")
        checks = [
            {"name": "correctness", "metric": "correctness"},
            {"name": "attention throughput per GPU", "metric": "attention_tflops_per_rank", "min": 356},
            {"name": "NVLink bandwidth", "metric": "comm_bandwidth_fraction", "min": 0.5, "link_gbps": 3600,
             "where": {"variant": "allgather"}},
        ]
        sweep = {"seq": 32768, "cp": 8, "split": "zigzag", "variant": ["ring", "allgather"], "heads": 16,
                 "kv_heads": 2, "head_dim": 128, "dtype": "bfloat16", "backend": "cuda"}
        with tempdir() as d:
            xml = os.path.join(d, "junit.xml")
            p = run("accept", profile(d, "h200", checks, sweep), "--results", fixture, "--junit", xml)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertRegex(p.stdout, r"FAIL\s+attention throughput per GPU\s+measured 162\.1 ")
            self.assertNotIn("1297", p.stdout)
            self.assertRegex(p.stdout, r"N/A\s+NVLink bandwidth\s+measured N/A: the local transport on one GPU")
            self.assertNotRegex(p.stdout, r"PASS\s+NVLink")
            self.assertIn("FAIL: 1 of 3 checks passed, 1 N/A", p.stdout)
            suites = junit_suites(xml)
            self.assertEqual(suites["NVLink bandwidth"].get("skipped"), "1")
            self.assertEqual(len(suites["NVLink bandwidth"].findall("testcase/skipped")), 1)
            # The same file against itself: converted alike, so SAME; and the report shows per-GPU figures.
            c = run("compare", fixture, fixture, "--metric", "tflops")
            self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
            self.assertIn("SAME", c.stdout)
            html = os.path.join(d, "r.html")
            r = run("report", fixture, "-o", html)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(html) as f:
                page = f.read()
            self.assertIn("TFLOP/s per GPU", page)
            self.assertIn("162.1", page)

    def test_junit_parses_whatever_a_path_a_name_or_a_reason_holds(self):
        """The JUnit file is XML 1.0 that a CI job parses: a results path that is not UTF-8, control
        characters in a failure reason and markup in a check's name reach it escaped, never raw."""
        with tempdir() as d:
            p = run("run", *TINY, "--out", os.path.join(d, "base"))
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = read_json(os.path.join(d, "base", "results.json"))
            bad = os.path.join(d, os.fsdecode(b"bad\xff"))
            os.makedirs(bad)
            write_json(os.path.join(bad, "results.json"), doc)
            failed = copy.deepcopy(doc)
            failed["runs"][0]["status"] = "failed"
            failed["runs"][0]["reason"] = "boom \x1b[2J\x07 it's <S % 2c> & more"
            write_json(os.path.join(d, "failed.json"), failed)
            name = "correctness 'all' <&>"
            prof = profile(d, "hostile", [{"name": name, "metric": "correctness"}])
            cases = [  # (what, results, exit code, the element and attribute that hold it, the text)
                ("a path that is not UTF-8", os.path.join(bad, "results.json"), 0,
                 ".//property[@name='results']", "value", os.path.join("bad\ufffd", "results.json")),
                ("control characters in a reason", os.path.join(d, "failed.json"), 1, ".//failure", "message",
                 "boom ?[2J? it's <S % 2c> & more"),
            ]
            for what, results, code, element, attribute, text in cases:
                with self.subTest(what):
                    xml = os.path.join(d, "junit.xml")
                    before = folder_state(d)
                    p = run("accept", prof, "--results", results, "--junit", xml)
                    self.assertEqual(p.returncode, code, p.stdout + p.stderr)
                    self.assertEqual(p.stderr, "")
                    after = folder_state(d)
                    self.assertEqual({k: v for k, v in after.items() if k != "junit.xml"},
                                     {k: v for k, v in before.items() if k != "junit.xml"})
                    with open(xml, "rb") as f:
                        raw = f.read()
                    for byte in (b"\x1b", b"\x07", b"\xff"):
                        self.assertNotIn(byte, raw)
                    root = ET.parse(xml).getroot()  # raises on what XML 1.0 forbids
                    self.assertIn(name, junit_suites(xml))
                    self.assertIn(text, root.find(element).get(attribute))
                    os.remove(xml)

    def test_bad_input_exits_2_naming_file_and_path(self):
        with tempdir() as d:
            garbage = os.path.join(d, "garbage.json")
            with open(garbage, "w") as f:
                f.write('{"checks": [')
            cases = [
                (profile(d, "typo", [{"metric": "attention_tflop", "min": 1}]), "/checks/0/metric"),
                (profile(d, "nobound", [{"metric": "overlap_fraction"}]), "/checks/0"),
                (profile(d, "where", [{"metric": "correctness", "where": {"splt": "zigzag"}}]), "/checks/0/where/splt"),
                (profile(d, "empty", []), "/checks"),
                (profile(d, "sweep", PASSING, sweep=dict(SWEEP, seqq=[1])), "/sweep/seqq"),
                (write_json(os.path.join(d, "nochecks.json"), {"name": "x", "sweep": SWEEP}), "/checks"),
                (garbage, "garbage.json"),
            ]
            for path, where in cases:
                with self.subTest(where):
                    p = run("accept", path, "--out", os.path.join(d, "never"))
                    self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                    self.assertIn(os.path.basename(path), p.stderr)
                    self.assertIn(where, p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "never")))  # nothing ran
            p = run("accept", os.path.join(d, "missing.json"))
            self.assertEqual(p.returncode, 2)
            p = run("accept", profile(d, "ok", PASSING), "--results", garbage)
            self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
