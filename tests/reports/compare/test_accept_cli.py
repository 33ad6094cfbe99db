"""`ringbench accept` end to end: a profile that passes (exit 0) and one that fails (exit 1), PASS/FAIL
per check with measured and required, JUnit XML that parses and names every check and the node,
--results, the shipped profiles, bad input (exit 2, naming file and JSON path), a run failed by an
injected fault counted once (a correctness failure, errors of the checks that needed its
measurements), and `accept --json` checked against reports/compare/accept.schema.json by an outside
validator (Debian's python3-jsonschema, draft 2020-12)."""
import copy
import json
import os
import re
import unittest
import xml.etree.ElementTree as ET

import jsonschema

from ringbench_test import SANITIZED, SOURCE_DIR, TINY, folder_state, read_json, run, tempdir, write_json

ACCEPT_SCHEMA = os.path.join(SOURCE_DIR, "reports", "compare", "accept.schema.json")

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
    """The suites by check name: each is named "<hostname>: <check>", the hostname its attribute."""
    root = ET.parse(path).getroot()  # raises on malformed XML
    assert root.tag == "testsuites", root.tag
    suites = {}
    for s in root.findall("testsuite"):
        host = s.get("hostname")
        assert host and s.get("name").startswith(host + ": "), (host, s.get("name"))
        suites[s.get("name")[len(host) + 2:]] = s
    return suites


def properties(suite):
    return {p.get("name"): p.get("value") for p in suite.findall("properties/property")}


def schema_validator():
    schema = read_json(ACCEPT_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_errors(v, doc):
    return [f"{e.json_path}: {e.message[:200]}" for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))]


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
            # every run of the sweep, a c = 1 alias counted once with the configuration it repeats
            self.assertEqual(int(suites["correctness"].get("tests")), 10)
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
            self.assertEqual(int(suites["impossible throughput"].get("failures")), 10)
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

    # The profile's checks judge measured figures against its thresholds: under ASan they would judge
    # the sanitizer, and its sweep was 144 of the sanitizer stage's CPU-seconds (issue 41). The ci
    # stage runs it; accept's code runs under ASan in the two tests above.
    @unittest.skipIf(SANITIZED, "measured figures; the ci stage runs it")
    def test_cpu_acceptance_profile_passes(self):
        with tempdir() as d:
            xml = os.path.join(d, "junit.xml")
            p = run("accept", os.path.join(SOURCE_DIR, "profiles", "acceptance-cpu.json"), "--out", os.path.join(d, "r"),
                    "--junit", xml)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            names = [c["name"] for c in read_json(os.path.join(SOURCE_DIR, "profiles", "acceptance-cpu.json"))["checks"]]
            self.assertEqual(set(junit_suites(xml)), set(names))

    def test_gpu_profiles_are_valid(self):
        # Without the cuda backend they cannot run, but they must parse and expand: given CPU results of
        # another sweep, accept refuses them naming the first difference (exit 2, one line), which it
        # reaches only past the profile's checks and sweep.
        with tempdir() as d:
            res = os.path.join(d, "r")
            self.assertEqual(run("run", "--seq", "64", "--cp", "1", "--split", "contiguous", "--heads", "2",
                                 "--kv-heads", "1", "--head-dim", "8", "--repeats", "1", "--out", res).returncode, 0)
            for name in ("acceptance-h100.json", "acceptance-h200.json", "gpu-check.json", "gpu-check-cudnn.json"):
                with self.subTest(name):
                    p = run("accept", os.path.join(SOURCE_DIR, "profiles", name), "--results",
                            os.path.join(res, "results.json"))
                    self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                    self.assertIn("/runs/0/config/", p.stderr)
                    self.assertIn("accept judges the results of its profile's own sweep", p.stderr)
            for name in ("nightly.json", "llama3-405b-cp16.json", "acceptance-h100.json", "gpu-short.json",
                         "gpu-check.json", "gpu-check-cudnn.json"):
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
            self.assertIn("FAIL: 1 of 3 checks passed, 1 failed, 1 N/A", p.stdout)
            # A file of 0.3.0 has no run times or build type: said so, on the lines that name the node.
            self.assertIn("node   h200-node\nGPUs   not recorded\nrun    not recorded (results older than 2.5.0)\n",
                          p.stdout)
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
            tiny = {"seq": 64, "cp": [1, 2], "heads": 2, "kv_heads": 1, "head_dim": 8, "repeats": 1}  # TINY's
            prof = profile(d, "hostile", [{"name": name, "metric": "correctness"}], tiny)
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


# The acceptance-cpu checks over a small sweep of it; the first configuration's output is corrupted
# (run --inject-fault corrupt@0), so that run fails its correctness check. No c = 1: there a split
# repeats the first one's computation, and the fault would reach both.
FAULT_SWEEP = {"seq": 256, "cp": [2, 4], "split": ["zigzag", "contiguous"], "variant": "ring", "heads": 4,
               "kv_heads": 2, "head_dim": 16, "causal": True, "dtype": "float64", "backend": "cpu",
               "transport": "local", "seed": 1, "repeats": 3, "warmup": 1}


class AcceptOfAFailedRun(unittest.TestCase):
    """One failure, one cause: the corrupted run fails the correctness check once; the throughput
    floor, which needs its measurement, gets an error of the run (not a threshold failure); the
    zigzag balance, which its plan decides, is still judged. Every output names the node and the run."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        d = cls.tmp.name
        checks = read_json(os.path.join(SOURCE_DIR, "profiles", "acceptance-cpu.json"))["checks"]
        # The floor's figure is not what this class tests (test_cpu_acceptance_profile_passes is):
        # under ASan on a loaded 2-core VM a tiny run measured 1.5x the profile's 20 MFLOP/s idle and
        # fell under it beside a parallel test. Here the floor only has to need a measurement.
        for c in checks:
            if c["metric"] == "attention_tflops":
                c["min"] = 1e-12
        cls.profile = profile(d, "fault", checks, FAULT_SWEEP)
        out = os.path.join(d, "res")
        # accept takes no --inject-fault: run the profile's sweep with it, then accept --results.
        sweep = write_json(os.path.join(d, "sweep.json"), {"name": "fault", "sweep": FAULT_SWEEP})
        p = run("run", sweep, "--inject-fault", "corrupt@0", "--out", out)
        assert p.returncode == 1, p.stdout + p.stderr  # a failed configuration
        cls.results = os.path.join(out, "results.json")
        cls.doc = read_json(cls.results)
        failed = [r for r in cls.doc["runs"] if r["status"] != "ok"]
        assert len(failed) == 1 and failed[0]["reason"].startswith("correctness:"), failed
        cls.failed = failed[0]
        cls.xml = os.path.join(d, "junit.xml")
        cls.text = run("accept", cls.profile, "--results", cls.results, "--junit", cls.xml)
        cls.json = run("accept", cls.profile, "--results", cls.results, "--json")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_failed_run_is_one_failure_and_an_error_of_the_checks_that_needed_it(self):
        self.assertEqual(self.text.returncode, 1, self.text.stdout + self.text.stderr)
        self.assertEqual(self.failed["config"]["split"], "zigzag")
        root = ET.parse(self.xml).getroot()
        suites = junit_suites(self.xml)
        failures = root.findall(".//failure")
        self.assertEqual(len(failures), 1, ET.tostring(root, encoding="unicode")[:3000])
        self.assertEqual(root.get("failures"), "1")
        self.assertEqual(failures[0].get("type"), "correctness")
        self.assertIn(self.failed["reason"], failures[0].get("message"))
        self.assertIsNotNone(suites["correctness"].find("testcase/failure"))
        self.assertIn(self.failed["config"]["id"], suites["correctness"].find("testcase/failure/..").get("name"))
        # The throughput floor needed the run's measurement: an error of the run, counted as such.
        floor = suites["throughput floor"]
        self.assertEqual((floor.get("failures"), floor.get("errors")), ("0", "1"))
        errors = root.findall(".//error")
        self.assertEqual([e.get("type") for e in errors], ["run-failed"])
        self.assertEqual(errors[0].get("message"), "throughput floor: run failed: " + self.failed["reason"])
        self.assertEqual(root.get("errors"), "1")
        self.assertEqual(root.findall(".//failure[@type='threshold']"), [])
        # The zigzag balance is the plan's: the failed zigzag run is judged on it, and passes.
        balance = suites["zigzag work balance"]
        self.assertEqual((balance.get("failures"), balance.get("errors"), balance.get("tests")), ("0", "0", "2"))
        # The console: ERROR for the floor, one FAIL line, and the count of each.
        out = self.text.stdout
        self.assertRegex(out, r"(?m)^FAIL  correctness ")
        self.assertRegex(out, r"(?m)^PASS  zigzag work balance ")
        self.assertRegex(out, r"(?m)^PASS  contiguous causal imbalance ")
        self.assertRegex(out, r"(?m)^ERROR throughput floor .*\[3/3 runs, 1 run error\]$")
        self.assertEqual(len(re.findall(r"(?m)^      FAIL ", out)), 1, out)
        self.assertRegex(out, r"(?m)^      ERROR .*: run failed: " + re.escape(self.failed["reason"]) + "$")
        self.assertIn("FAIL: 2 of 4 checks passed, 1 failed, 1 with run errors\n", out)

    def test_junit_names_the_node_and_the_run_on_every_suite(self):
        root = ET.parse(self.xml).getroot()
        host = self.doc["host"]["hostname"]
        started = self.doc["run_time"]["started_utc"]
        self.assertTrue(host)
        self.assertTrue(root.get("name").startswith(host + ": "), root.get("name"))
        suites = root.findall("testsuite")
        self.assertEqual(len(suites), 4)
        for s in suites:
            self.assertEqual(s.get("hostname"), host)
            self.assertEqual(s.get("timestamp") + "Z", started)  # JUnit's timestamp has no zone
            self.assertRegex(s.get("timestamp"), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
            props = properties(s)
            self.assertEqual(props["node.hostname"], host)
            self.assertEqual(props["node.started_utc"], started)
            self.assertEqual(props["node.finished_utc"], self.doc["run_time"]["finished_utc"])
            self.assertEqual(props["node.build_type"], self.doc["tool"]["build_type"])
            self.assertEqual(props["node.git_sha"], self.doc["tool"]["git_sha"])
            self.assertEqual(props["node.tool_version"], self.doc["tool"]["version"])
            self.assertIn("metric", props)  # the check's own properties stay
            self.assertIn("required", props)
            for lib, versions in self.doc["host"].get("libraries", {}).items():
                if lib in ("nccl", "cudnn", "mpi") and "library" in versions:
                    self.assertEqual(props["node.version." + lib], versions["library"])
        # The console names the node first.
        lines = self.text.stdout.splitlines()
        self.assertEqual(lines[1], "node   " + host)
        if self.doc["host"]["gpus"]:  # a cuda build on a GPU machine lists them even for a cpu run
            self.assertTrue(lines[2].startswith("GPU 0  " + self.doc["host"]["gpus"][0]["uuid"]), lines[2])
        else:
            self.assertEqual(lines[2], "GPUs   no GPU (cpu backend)")
        self.assertIn(f"run    {started} to {self.doc['run_time']['finished_utc']}", lines)
        self.assertIn(f"build  type {self.doc['tool']['build_type']}, commit {self.doc['tool']['git_sha']}, "
                      f"ringbench {self.doc['tool']['version']}", lines)

    def test_accept_json_validates_against_its_schema_and_carries_the_node(self):
        self.assertEqual(self.json.returncode, 1, self.json.stderr)
        doc = json.loads(self.json.stdout)
        v = schema_validator()
        self.assertEqual(schema_errors(v, doc), [])
        node = doc["node"]
        self.assertEqual(node["hostname"], self.doc["host"]["hostname"])
        self.assertEqual(node["started_utc"], self.doc["run_time"]["started_utc"])
        self.assertEqual(node["finished_utc"], self.doc["run_time"]["finished_utc"])
        self.assertEqual(node["build_type"], self.doc["tool"]["build_type"])
        self.assertEqual(node["git_sha"], self.doc["tool"]["git_sha"])
        self.assertEqual(node["missing"], [])
        self.assertEqual(doc["summary"], {"checks": 4, "passed": 2, "failed": 1, "errors": 1, "na": 0})
        floor = next(c for c in doc["checks"] if c["name"] == "throughput floor")
        self.assertEqual(floor["result"], "ERROR")
        bad = next(r for r in floor["runs"] if r["id"] == self.failed["config"]["id"])
        self.assertEqual((bad["error"], bad["cause"], bad["value"]), (True, "run-failed", None))

    def test_the_schema_matches_the_writer_and_refuses_broken_output(self):
        schema = read_json(ACCEPT_SCHEMA)
        doc = json.loads(self.json.stdout)
        version = doc["schema_version"]
        self.assertEqual(schema["version"], version)
        self.assertTrue(schema["$id"].endswith(":" + version), schema["$id"])
        with open(os.path.join(SOURCE_DIR, "reports", "compare", "accept.hpp")) as f:
            self.assertIn(f'kAcceptSchemaVersion = "{version}"', f.read())
        v = schema_validator()
        breakages = {
            "no node": lambda d: d.pop("node"),
            "a node without its missing list": lambda d: d["node"].pop("missing"),
            "a start that is not UTC": lambda d: d["node"].__setitem__("started_utc", "2026-12-02 10:00"),
            "an unknown result": lambda d: d["checks"][0].__setitem__("result", "MAYBE"),
            "an error that passes": lambda d: next(r for c in d["checks"] for r in c["runs"] if r["error"])
            .__setitem__("pass", True),
            "an unknown cause": lambda d: d["checks"][0]["runs"][0].__setitem__("cause", "bad-luck"),
            "another major version": lambda d: d.__setitem__("schema_version", "2.0.0"),
        }
        for what, breakage in breakages.items():
            with self.subTest(what):
                broken = copy.deepcopy(doc)
                breakage(broken)
                self.assertNotEqual(schema_errors(v, broken), [], what)

    def test_older_results_and_unmatched_checks_validate_too(self):
        """A 0.3.0 file (no run times, build type or GPU list: `missing` says so), N/A checks and a
        check whose filter matches no run: all within the schema."""
        fixture = os.path.join(SOURCE_DIR, "tests", "data", "results-0.3.0-h200.json")
        checks = [{"name": "correctness", "metric": "correctness"},
                  {"name": "NVLink", "metric": "comm_bandwidth_fraction", "min": 0.5, "link_gbps": 3600},
                  {"name": "c16", "metric": "median_ms", "max": 1, "where": {"cp": [16]}}]
        sweep = {"seq": 32768, "cp": 8, "split": "zigzag", "variant": ["ring", "allgather"], "heads": 16,
                 "kv_heads": 2, "head_dim": 128, "dtype": "bfloat16", "backend": "cuda"}
        with tempdir() as d:
            p = run("accept", profile(d, "old", checks, sweep), "--results", fixture, "--json")
            self.assertEqual(p.returncode, 1, p.stderr)
            doc = json.loads(p.stdout)
            self.assertEqual(schema_errors(schema_validator(), doc), [])
            self.assertIn("/run_time/started_utc", doc["node"]["missing"])
            self.assertIn("/tool/build_type", doc["node"]["missing"])
            self.assertEqual(doc["node"]["hostname"], "h200-node")
            c16 = doc["checks"][2]
            self.assertEqual(c16["runs"][0]["cause"], "no-match")
            self.assertEqual(c16["runs"][0]["measured"], 'no run matches where {"cp": [16]}')
            p = run("accept", profile(d, "old", checks, sweep), "--results", fixture)
            self.assertRegex(p.stdout, r'(?m)^FAIL  c16 +no run matches where \{"cp": \[16\]\}  required <= 1  \[0/0 runs\]$')


if __name__ == "__main__":
    unittest.main(verbosity=2)
