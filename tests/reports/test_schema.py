"""reports/results/results.schema.json against real output of the built ringbench, checked by an
outside validator (Debian's python3-jsonschema, draft 2020-12), and against broken variants of that
output that the schema must refuse."""
import copy
import os
import re
import unittest

import jsonschema

from ringbench_test import SCHEMA, SOURCE_DIR, read_json, read_jsonl, report_sweep, tempdir


def validator(schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(v, doc):
    return sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))


class Schema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.schema = read_json(SCHEMA)
        cls.v = validator(cls.schema)
        # The schema of one run, for results.jsonl lines.
        cls.v_run = validator({"$schema": cls.schema["$schema"], "$defs": cls.schema["$defs"], "$ref": "#/$defs/run"})
        cls.tmp = tempdir()
        cls.results = report_sweep(os.path.join(cls.tmp.name, "res"))
        cls.doc = read_json(cls.results)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_real_results_json_validates(self):
        statuses = {r["status"] for r in self.doc["runs"]}
        self.assertIn("ok", statuses)
        self.assertIn("skipped", statuses)
        errs = errors(self.v, self.doc)
        self.assertEqual(errs, [], "\n".join(f"{e.json_path}: {e.message[:300]}" for e in errs[:10]))

    def test_every_results_jsonl_line_validates_as_a_run(self):
        lines = read_jsonl(os.path.join(os.path.dirname(self.results), "results.jsonl"))
        # A line per round of a configuration; the last line of each id is its record.
        last = {}
        for run in lines:
            last[run["config"]["id"]] = run
        # results.json keeps the sweep's order, in which a c = 1 alias (appended when the
        # configuration it repeats closes) may stand earlier than its line
        self.assertEqual(last, {r["config"]["id"]: r for r in self.doc["runs"]})
        for i, run in enumerate(lines):
            errs = errors(self.v_run, run)
            self.assertEqual(errs, [], f"line {i + 1}: " + "; ".join(e.message[:200] for e in errs[:5]))

    def test_schema_carries_the_version_the_writer_writes(self):
        version = self.doc["schema_version"]
        self.assertEqual(self.schema["version"], version)
        self.assertTrue(self.schema["$id"].endswith(":" + version), self.schema["$id"])
        self.assertIn(version, self.schema["title"])
        with open(os.path.join(SOURCE_DIR, "reports", "results", "results_writer.hpp")) as f:
            self.assertIn(f'kResultsSchemaVersion = "{version}"', f.read())
        with open(os.path.join(SOURCE_DIR, "docs", "formats.md")) as f:
            self.assertRegex(f.read(), re.escape(f"reports/results/results.schema.json") + r"[\s\S]*" + re.escape(version))

    def test_broken_output_is_refused(self):
        ok = next(i for i, r in enumerate(self.doc["runs"]) if r["status"] == "ok")
        skipped = next(i for i, r in enumerate(self.doc["runs"]) if r["status"] == "skipped")
        breakages = {
            "unknown status": lambda d: d["runs"][ok].__setitem__("status", "finished"),
            "missing seq": lambda d: d["runs"][ok]["config"].pop("seq"),
            "unknown split": lambda d: d["runs"][ok]["config"].__setitem__("split", "diagonal"),
            "skip without a reason": lambda d: d["runs"][skipped].__setitem__("reason", None),
            "ok run without timing": lambda d: d["runs"][ok].__setitem__("timing", None),
            "negative sample": lambda d: d["runs"][ok]["timing"]["samples_ms"].__setitem__(0, -1.0),
            "overlap above 1": lambda d: d["runs"][ok]["metrics"].__setitem__("overlap_fraction", 1.5),
            "imbalance below 1": lambda d: d["runs"][ok]["plan"].__setitem__("work_imbalance", 0.5),
            "wrong schema name": lambda d: d.__setitem__("schema", "something.else"),
            "major version 3": lambda d: d.__setitem__("schema_version", "3.0.0"),
            "a 1.x document (readers convert it; the schema describes 2.x)":
                lambda d: d.__setitem__("schema_version", "1.2.0"),
            "a run without its version": lambda d: d["runs"][ok].pop("schema_version"),
            "unknown comm basis": lambda d: d["runs"][ok]["metrics"].__setitem__("comm_basis", "events"),
            "no runs": lambda d: d.pop("runs"),
        }
        if self.doc["runs"][ok].get("timeline"):
            breakages["interval of unknown kind"] = \
                lambda d: d["runs"][ok]["timeline"]["intervals"][0].__setitem__("kind", "gpu")
        for name, breakage in breakages.items():
            with self.subTest(name):
                doc = copy.deepcopy(self.doc)
                breakage(doc)
                self.assertNotEqual(errors(self.v, doc), [], f"the schema accepted: {name}")

    def test_an_ab_runs_pairing_validates_and_a_broken_one_is_refused(self):
        # 2.3.0: one build of an A/B run (`ringbench ab`) records its pairing; a file without it
        # (every plain run, and every older file) stays valid.
        self.assertNotIn("pairing", self.doc)
        pairing = {"role": "new", "partner_git_sha": "93fcd57697f0", "partner_version": "0.1.0",
                   "first_by_round": ["base", "new", None], "pair_id": "dff9fdea1c446dd3", "unit": "configuration"}
        doc = copy.deepcopy(self.doc)
        doc["pairing"] = pairing
        self.assertEqual(errors(self.v, doc), [])
        older = copy.deepcopy(self.doc)
        older["schema_version"] = "2.2.0"
        self.assertEqual(errors(self.v, older), [])
        before_unit = copy.deepcopy(doc)  # a pair of 2.3.0-2.6.0 took turns by pass and says nothing
        del before_unit["pairing"]["unit"]
        self.assertEqual(errors(self.v, before_unit), [])
        breakages = {
            "unknown role": lambda p: p.__setitem__("role", "candidate"),
            "no partner sha": lambda p: p.pop("partner_git_sha"),
            "empty pair id": lambda p: p.__setitem__("pair_id", ""),
            "a round first by neither build": lambda p: p["first_by_round"].__setitem__(0, "both"),
            "order not a list": lambda p: p.__setitem__("first_by_round", "base,new"),
            "a turn of an unknown unit (2.8.0)": lambda p: p.__setitem__("unit", "round"),
        }
        for name, breakage in breakages.items():
            with self.subTest(name):
                doc = copy.deepcopy(self.doc)
                doc["pairing"] = copy.deepcopy(pairing)
                breakage(doc["pairing"])
                self.assertNotEqual(errors(self.v, doc), [], f"the schema accepted: {name}")
        by_sample = copy.deepcopy(doc)  # 2.8.0: turns of one timed pass
        by_sample["pairing"] = dict(pairing, unit="sample")
        self.assertEqual(errors(self.v, by_sample), [])

    def test_cpu_runs_say_how_their_threads_were_bound(self):
        # 2.4.0: every cpu run says whether its ranks' compute threads were bound (the default) or
        # left to the OS; a file without it (every older one) was measured unbound.
        cpu = [r for r in self.doc["runs"] if r["config"]["backend"] == "cpu" and r.get("timing")]
        self.assertTrue(cpu)
        self.assertEqual({r["timing"]["cpu_binding"] for r in cpu}, {"ranks"})
        older = copy.deepcopy(self.doc)
        older["schema_version"] = "2.3.0"
        for r in older["runs"]:
            if r.get("timing"):
                r["timing"].pop("cpu_binding", None)
        self.assertEqual(errors(self.v, older), [])
        for bad in ("cores", "", None, True):
            with self.subTest(bad):
                doc = copy.deepcopy(self.doc)
                next(r for r in doc["runs"] if r.get("timing"))["timing"]["cpu_binding"] = bad
                self.assertNotEqual(errors(self.v, doc), [], f"the schema accepted cpu_binding {bad!r}")

    def test_the_node_and_the_time_are_named(self):
        # 2.5.0: when the sweep ran, the build type, every library the build knows with the version
        # it loaded, and what ran each rank of every run that made an executor.
        stamp = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
        t = self.doc["run_time"]
        self.assertRegex(t["started_utc"], stamp)
        self.assertRegex(t["finished_utc"], stamp)
        self.assertLessEqual(t["started_utc"], t["finished_utc"])
        self.assertTrue(self.doc["tool"]["build_type"])
        self.assertIn("libraries", self.doc["host"])
        for name, versions in self.doc["host"]["libraries"].items():
            self.assertTrue(versions, name)
        ran = [r for r in self.doc["runs"] if r.get("timing")]
        self.assertTrue(ran)
        for r in ran:
            places = r["placement"]
            self.assertEqual([p["rank"] for p in places], list(range(r["config"]["cp"])), r["config"]["id"])
            self.assertEqual({p["host"] for p in places}, {self.doc["host"]["hostname"]})
            # the cpu backend binds each rank's compute thread by default: "cpu N"
            self.assertTrue(all(re.fullmatch(r"cpu \d+", p["device"]) for p in places), places)
        breakages = {
            "a date without time": lambda d: d["run_time"].__setitem__("started_utc", "2026-12-02"),
            "a local time": lambda d: d["run_time"].__setitem__("finished_utc", "2026-12-02T10:00:00+01:00"),
            "no end": lambda d: d["run_time"].pop("finished_utc"),
            "a rank without a device": lambda d: next(r for r in d["runs"] if r.get("placement"))["placement"][0].pop("device"),
            "a negative rank": lambda d: next(r for r in d["runs"] if r.get("placement"))["placement"][0].__setitem__("rank", -1),
            "a serial that is a number": lambda d: d["host"].__setitem__("gpus", [{"name": "x", "uuid": "GPU-1", "serial": 5}]),
        }
        for name, breakage in breakages.items():
            with self.subTest(name):
                doc = copy.deepcopy(self.doc)
                breakage(doc)
                self.assertNotEqual(errors(self.v, doc), [], f"the schema accepted: {name}")
        older = copy.deepcopy(self.doc)
        older["schema_version"] = "2.4.0"
        older.pop("run_time")
        for r in older["runs"]:
            r.pop("placement", None)
        self.assertEqual(errors(self.v, older), [])

    def test_the_cudnn_kernel_s_graphs_validate_and_broken_ones_are_refused(self):
        # 2.9.0: the golden cuda results file (tests/bench/sweep/test_cudnn_record_golden.cpp) with
        # each graph's implementation and build time, and the builds of the configuration's rounds.
        golden = read_json(os.path.join(SOURCE_DIR, "tests", "data", "golden", "records", "cudnn-graphs.json"))
        self.assertEqual(errors(self.v, golden), [])
        choice = golden["runs"][0]["kernel_choice"]
        self.assertEqual({g["implementation"] for g in choice["cudnn_graphs"].values()}, {"composite"})
        self.assertEqual(choice["cudnn_graphs"].keys(), choice["cudnn_plans"].keys())
        breakages = {
            "an implementation AUTO would leave open": lambda k: next(iter(k["cudnn_graphs"].values()))
            .__setitem__("implementation", "auto"),
            "a graph without its implementation": lambda k: next(iter(k["cudnn_graphs"].values())).pop("implementation"),
            "a negative build time": lambda k: next(iter(k["cudnn_graphs"].values())).__setitem__("build_ms", -1.0),
            "builds not a count": lambda k: k.__setitem__("cudnn_plan_builds", 1.5),
            "plans as graphs (cudnn_plans' values stay names)": lambda k: k["cudnn_plans"].update(
                {s: {"implementation": "composite"} for s in k["cudnn_plans"]}),
        }
        for name, breakage in breakages.items():
            with self.subTest(name):
                doc = copy.deepcopy(golden)
                breakage(doc["runs"][0]["kernel_choice"])
                self.assertNotEqual(errors(self.v, doc), [], f"the schema accepted: {name}")

    def test_later_minor_versions_may_add_fields(self):
        doc = copy.deepcopy(self.doc)
        doc["schema_version"] = "2.10.0"
        doc["new_top_level"] = {"x": 1}
        doc["runs"][0]["new_field"] = [1, 2]
        doc["runs"][0]["config"]["new_axis"] = "value"
        self.assertEqual(errors(self.v, doc), [])


if __name__ == "__main__":
    unittest.main()
