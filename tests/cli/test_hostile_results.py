"""Results files crafted from one real sweep's, read by every command that reads them: the reader
holds each value to what the schema says of the file's own version and to what a writer writes
(reports/results/results_values.hpp). Each row exits 2 with one stderr line naming the file's JSON
path, and writes nothing; values a newer MINOR version adds are read, not refused. Then acceptance
on what it was given, never less: a sweep cut short fails `accept` (its JUnit says why; a signal
keeps its exit code), and `fleet` names a node that failed everything, reported a figure of 0, or left
only a results.jsonl, and still judges the rest."""
import copy
import json
import os
import signal
import subprocess
import time
import unittest
import xml.etree.ElementTree as ET

from ringbench_test import BIN, TINY, folder_state, read_json, run, tempdir, write_json

INT64_MAX = 2**63 - 1
ACCEPT = {"name": "tiny", "sweep": {"seq": 64, "cp": [1, 2], "heads": 2, "kv_heads": 1, "head_dim": 8,
                                    "repeats": 2, "rounds": 2},
          "checks": [{"name": "correctness", "metric": "correctness"},
                     {"name": "rate", "metric": "attention_tflops", "min": 1e-9}]}


def edit(doc, pointer, value):
    """doc with the value at a JSON pointer replaced (created where missing)."""
    doc = copy.deepcopy(doc)
    *parents, leaf = pointer.strip("/").split("/")
    node = doc
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node.setdefault(p, {})
    if isinstance(node, list):
        node[int(leaf)] = value
    else:
        node[leaf] = value
    return doc


class HostileResults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        d = cls.d = cls.tmp.name
        write_json(os.path.join(d, "accept.json"), ACCEPT)
        p = run("accept", os.path.join(d, "accept.json"), "--out", os.path.join(d, "base"))
        assert p.returncode == 0, p.stdout + p.stderr
        cls.res = os.path.join(d, "base", "results.json")
        cls.good = read_json(cls.res)
        cls.c2 = next(i for i, r in enumerate(cls.good["runs"]) if r["config"]["cp"] == 2)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def refused(self, doc_or_text, where, commands=("compare", "report", "accept", "fleet")):
        with tempdir() as t:
            path = os.path.join(t, "crafted.json")
            if isinstance(doc_or_text, str):
                with open(path, "w") as f:
                    f.write(doc_or_text)
            else:
                write_json(path, doc_or_text)
            # Relative, so the error line's path is short enough to keep whole.
            argvs = {"compare": ["compare", self.res, "crafted.json"],
                     "report": ["report", "crafted.json", "-o", "r.html"],
                     "accept": ["accept", os.path.join(self.d, "accept.json"), "--results", "crafted.json",
                                "--junit", "j.xml"],
                     "fleet": ["fleet", "crafted.json", "--json-out", "f.json"]}
            before = folder_state(t)
            for c in commands:
                p = run(*argvs[c], timeout=120, cwd=t)
                self.assertEqual(p.returncode, 2, f"{c}: {p.stdout[-500:]}{p.stderr[-500:]}")
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, f"{c}: {p.stderr}")
                self.assertIn(f"crafted.json: {where}", lines[0], c)
                self.assertEqual(folder_state(t), before, f"{c} wrote something")

    def test_each_value_outside_the_schema_of_its_version_is_refused_with_its_path(self):
        g, c2 = self.good, self.c2
        pairing = {"role": "base", "partner_git_sha": "abc", "partner_version": "0.1.0",
                   "first_by_round": ["base", "new"], "pair_id": "p1", "unit": "sample"}
        cases = [
            # timestamps decide which file is a node's newest
            ("started_utc malformed", edit(g, "/run_time/started_utc", "2026-12-1T9:00:00Z"), "/run_time/started_utc"),
            ("started_utc no such day", edit(g, "/run_time/started_utc", "2026-02-30T10:00:00Z"),
             "/run_time/started_utc"),
            ("finished before started", edit(g, "/run_time/finished_utc", "2000-01-01T00:00:00Z"),
             "/run_time/finished_utc"),
            # enums as of the file's own version
            ("pairing.role", edit(edit(g, "/pairing", pairing), "/pairing/role", "boss"), "/pairing/role"),
            ("pairing.unit sample in 2.7.0", edit(edit(g, "/pairing", pairing), "/schema_version", "2.7.0"),
             "/pairing/unit"),
            ("split", edit(g, f"/runs/{c2}/config/split", "diagonal"), f"/runs/{c2}/config/split"),
            ("comm_basis", edit(g, f"/runs/{c2}/metrics/comm_basis", "telepathy"), f"/runs/{c2}/metrics/comm_basis"),
            # figures: non-negative and finite, as the schema means them
            ("negative TFLOP/s", edit(g, f"/runs/{c2}/metrics/attention_tflops", -1.5),
             f"/runs/{c2}/metrics/attention_tflops"),
            ("negative bandwidth", edit(g, f"/runs/{c2}/metrics/per_rank/1/comm_bandwidth_gbyte_per_s", -3),
             f"/runs/{c2}/metrics/per_rank/1/comm_bandwidth_gbyte_per_s"),
            ("negative rank TFLOP/s", edit(g, f"/runs/{c2}/metrics/per_rank/0/attention_tflops", -0.001),
             f"/runs/{c2}/metrics/per_rank/0/attention_tflops"),
            ("negative exposed comm", edit(g, f"/runs/{c2}/metrics/exposed_comm_ms", -0.1),
             f"/runs/{c2}/metrics/exposed_comm_ms"),
            # counts a reader sizes by
            ("huge cp", edit(g, f"/runs/{c2}/config/cp", 2**31 - 1), f"/runs/{c2}/config/cp"),
            ("wrapping round_counts", edit(g, f"/runs/{c2}/timing/round_counts", [INT64_MAX, INT64_MAX, 4]),
             f"/runs/{c2}/timing/round_counts/0"),
            ("rank beyond c", edit(g, f"/runs/{c2}/placement/1/rank", 5), f"/runs/{c2}/placement/1/rank"),
        ]
        for name, doc, where in cases:  # (1e999 in a file is refused as it is parsed, before any field)
            with self.subTest(name):
                self.refused(doc, where)

    def test_a_newer_minor_versions_values_are_read_not_refused(self):
        doc = edit(self.good, "/schema_version", "2.99.0")
        for r in doc["runs"]:
            r["schema_version"] = "2.99.0"
        doc = edit(doc, "/pairing", {"role": "base", "partner_git_sha": "abc", "partner_version": "9.0.0",
                                     "first_by_round": ["new"], "pair_id": "p1", "unit": "by-the-moon"})
        doc = edit(doc, f"/runs/{self.c2}/timing/cpu_binding", "numa-nodes")
        with tempdir() as t:
            path = write_json(os.path.join(t, "newer.json"), doc)
            for argv in (["compare", self.res, path], ["report", path, "-o", os.path.join(t, "r.html")],
                         ["accept", os.path.join(self.d, "accept.json"), "--results", path]):
                with self.subTest(argv[0]):
                    p = run(*argv)
                    self.assertIn(p.returncode, (0, 1), p.stderr)

    def test_a_base_near_zero_prints_no_infinite_change(self):
        with tempdir() as t:
            base = write_json(os.path.join(t, "base.json"), edit(self.good, f"/runs/{self.c2}/metrics/attention_tflops",
                                                                 5e-324))
            p = run("compare", base, self.res, "--metric", "tflops")
            self.assertNotIn("inf", p.stdout.lower())
            # A nonzero figure below 1e-100 is no measurement (the reader's rule since issue 51): refused
            # with its path rather than read into a ratio that overflows.
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn(f"/runs/{self.c2}/metrics/attention_tflops", p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    # ---- accept: a sweep cut short is no pass ----

    def test_accept_fails_a_sweep_that_was_stopped_or_ran_fewer_rounds(self):
        stopped = edit(self.good, "/stopped", "the sweep was interrupted by SIGTERM")
        stopped = edit(stopped, f"/runs/{self.c2}/timing/rounds", 1)
        short = edit(self.good, f"/runs/{self.c2}/timing/rounds", 1)
        for name, doc, words in (("stopped", stopped, "the sweep did not finish: the sweep was interrupted by SIGTERM"),
                                 ("fewer rounds", short, "ran 1 of 2 rounds")):
            with self.subTest(name), tempdir() as t:
                path = write_json(os.path.join(t, "results.json"), doc)
                junit = os.path.join(t, "j.xml")
                p = run("accept", os.path.join(self.d, "accept.json"), "--results", path, "--junit", junit)
                self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                self.assertIn("FAIL: 2 of 2 checks passed (", p.stdout)
                self.assertIn(words, p.stdout)
                root = ET.parse(junit).getroot()
                self.assertEqual(root.get("failures"), "1")
                failure = root.find("testsuite/testcase/failure[@type='incomplete']")
                self.assertIsNotNone(failure, ET.tostring(root, encoding="unicode")[-800:])
                self.assertIn(words, failure.get("message") + failure.text)
        # The file as written passes: what fails above is the cut.
        p = run("accept", os.path.join(self.d, "accept.json"), "--results", self.res)
        self.assertEqual(p.returncode, 0, p.stdout)

    def test_accept_cut_by_sigterm_exits_143_with_a_failing_junit(self):
        with tempdir() as t:
            long_profile = write_json(os.path.join(t, "long.json"), {
                "name": "long", "sweep": {"seq": 512, "cp": [1, 2, 4, 8], "split": ["contiguous", "zigzag", "striped"],
                                          "variant": ["ring", "allgather"], "heads": 4, "kv_heads": 2, "head_dim": 32,
                                          "repeats": 20},
                "checks": [{"name": "correctness", "metric": "correctness"}]})
            out, junit = os.path.join(t, "out"), os.path.join(t, "j.xml")
            proc = subprocess.Popen([BIN, "accept", long_profile, "--out", out, "--junit", junit],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            jsonl = os.path.join(out, "results.jsonl")
            deadline = time.time() + 120
            while time.time() < deadline and proc.poll() is None:
                if os.path.exists(jsonl) and os.path.getsize(jsonl) > 0:
                    break
                time.sleep(0.05)
            self.assertIsNone(proc.poll(), "the sweep ended before it could be cut")
            proc.send_signal(signal.SIGTERM)
            stdout, stderr = proc.communicate(timeout=120)
            self.assertEqual(proc.returncode, 128 + signal.SIGTERM, stderr)
            self.assertIn("the sweep was interrupted by SIGTERM", stdout)
            root = ET.parse(junit).getroot()
            self.assertGreaterEqual(int(root.get("failures")), 1)
            failure = root.find("testsuite/testcase/failure[@type='incomplete']")
            self.assertIsNotNone(failure)
            self.assertIn("interrupted by SIGTERM", failure.get("message"))

    # ---- fleet: a dead node, a zero figure, a killed node ----

    def fleet_dir(self, t, n=6):
        """n nodes of the real sweep, node-05 30% slower in every time."""
        for i in range(n):
            host = f"node-{i:02d}"
            doc = copy.deepcopy(self.good)
            doc["host"]["hostname"] = host
            for r in doc["runs"]:
                for pl in r.get("placement") or []:
                    pl["host"] = host
                if i == n - 1 and r.get("timing"):
                    for k in ("min_ms", "median_ms", "mean_ms", "p90_ms", "p99_ms", "max_ms"):
                        r["timing"][k] *= 1.3
                    r["timing"]["samples_ms"] = [x * 1.3 for x in r["timing"]["samples_ms"]]
            os.makedirs(os.path.join(t, host))
            write_json(os.path.join(t, host, "results.json"), doc)
        return t

    def fleet(self, t, *extra):
        p = run("fleet", t, "--json", *extra)
        self.assertIn(p.returncode, (0, 1, 2), p.stderr)
        return p

    def test_fleet_names_a_dead_node_and_still_judges_the_rest(self):
        with tempdir() as t:
            self.fleet_dir(t)
            path = os.path.join(t, "node-02", "results.json")
            doc = read_json(path)
            for r in doc["runs"]:
                r.update({"status": "failed", "reason": "CUDA error: an illegal memory access", "timing": None,
                          "metrics": None})
            write_json(path, doc)
            p = self.fleet(t)
            self.assertEqual(p.returncode, 1, p.stderr)
            v = json.loads(p.stdout)
            self.assertTrue(v["judged"])
            named = {n["node"]["hostname"]: n["findings"] for n in v["nodes"] if n["outlier"]}
            self.assertEqual(set(named), {"node-02", "node-05"})
            self.assertIn("no configuration ran ok", named["node-02"][0])
            self.assertIn("illegal memory access", named["node-02"][0])

    def test_fleet_names_a_zero_figure_and_keeps_the_metric(self):
        with tempdir() as t:
            self.fleet_dir(t)
            path = os.path.join(t, "node-03", "results.json")
            write_json(path, edit(read_json(path), f"/runs/{self.c2}/metrics/attention_tflops", 0.0))
            p = self.fleet(t)
            self.assertEqual(p.returncode, 1, p.stderr)
            v = json.loads(p.stdout)
            named = {n["node"]["hostname"] for n in v["nodes"] if n["outlier"]}
            self.assertEqual(named, {"node-03", "node-05"})
            # The configuration with the 0 still counts for every other node (it dropped for all of them).
            tf = {pt["node"]: pt["configurations"] for m in v["metrics"] if m["name"] == "attention_tflops"
                  for pt in m["nodes"]}
            self.assertEqual(tf["node-00"], tf["node-03"] + 1, tf)

    def test_fleet_reads_a_jsonl_node_by_its_records_or_refuses_it_in_one_line(self):
        with tempdir() as t:
            self.fleet_dir(t)
            folder = os.path.join(t, "node-04")
            doc = read_json(os.path.join(folder, "results.json"))
            os.remove(os.path.join(folder, "results.json"))
            with open(os.path.join(folder, "results.jsonl"), "w") as f:
                for r in doc["runs"]:
                    f.write(json.dumps(r) + "\n")
            p = self.fleet(t)
            self.assertEqual(p.returncode, 1, p.stderr)
            v = json.loads(p.stdout)
            named = {n["node"]["hostname"]: n["findings"] for n in v["nodes"] if n["outlier"]}
            self.assertEqual(set(named), {"node-04", "node-05"})
            self.assertIn("results.jsonl without its results.json", " ".join(named["node-04"]))
            # Records that name no host cannot be told apart: refused, naming what is missing.
            with open(os.path.join(folder, "results.jsonl"), "w") as f:
                for r in doc["runs"]:
                    r.pop("placement", None)
                    f.write(json.dumps(r) + "\n")
            p = self.fleet(t)
            self.assertEqual(p.returncode, 2, p.stdout)
            lines = p.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn("results.jsonl: host", lines[0])


if __name__ == "__main__":
    unittest.main()
