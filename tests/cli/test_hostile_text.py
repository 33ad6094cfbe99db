"""Hostile input, round three (issue 28): text and types. A path that is not UTF-8 costs no results and
crashes no JSON writer (its bytes are written as U+FFFD); control characters read from files never
reach the terminal raw; every error line stays short; runs under one config id that are not one
configuration, or that carry absurd times, are refused with the JSON path; and a type fuzz over every
field of a results file: report, compare, accept and trend exit 0, 1 (a regression, a FAIL) or 2 with
one line, never with the JSON library's message or a signal."""
import copy
import json
import os
import subprocess
import unittest
from concurrent.futures import ThreadPoolExecutor

from ringbench_test import BIN, SANITIZED, SOURCE_DIR, folder_state, read_json, run, tempdir, write_json

# The sweep of TINY (below), as a profile writes it: accept judges results of its own sweep only.
TINY_SWEEP = {"seq": 64, "cp": [1, 2], "heads": 2, "kv_heads": 1, "head_dim": 8, "repeats": 1}

TINY = ["--seq", "64", "--cp", "1,2", "--heads", "2", "--kv-heads", "1", "--head-dim", "8", "--repeats", "3",
        "--warmup", "0"]
BAD = os.fsdecode(b"bad\xff")  # the byte 0xff, as the command line and the file system carry it
RAW_CONTROLS = (b"\x1b", b"\x07", b"\x9b", b"\xc2\x9b", b"\r")


def run_bytes(*args, cwd=None):
    """ringbench with args; stdout and stderr as bytes, so a raw control or a stray byte shows."""
    return subprocess.run([BIN, *map(str, args)], capture_output=True, timeout=300, cwd=cwd)


class HostileText(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempdir()
        cls.d = cls.tmp.name
        p = run("run", *TINY, "--out", os.path.join(cls.d, "base"))
        assert p.returncode == 0, p.stderr
        cls.base_path = os.path.join(cls.d, "base", "results.json")
        cls.base = read_json(cls.base_path)
        # acceptance-cpu.json's checks over TINY's sweep: accept judges results of its profile's own sweep.
        cpu = read_json(os.path.join(SOURCE_DIR, "profiles", "acceptance-cpu.json"))
        cls.profile = write_json(os.path.join(cls.d, "acceptance-tiny.json"), dict(cpu, sweep=TINY_SWEEP))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_one_line(self, p, *names, code=2):
        err = p.stderr if isinstance(p.stderr, str) else p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, code, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        for n in names:
            self.assertIn(n, err)
        return err

    def test_a_path_that_is_not_utf8_costs_no_results(self):
        out = os.path.join(self.d, BAD)
        p = run_bytes("run", *TINY, "--trace", "--out", out)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        doc = read_json(os.path.join(out, "results.json"))
        self.assertIn("bad\ufffd", doc["tool"]["command_line"])
        self.assertIn(b"bad\\xff", p.stdout)  # printed escaped, not as the raw byte
        self.assertNotIn(b"\xff", p.stdout + p.stderr)
        res = os.path.join(out, "results.json")
        hist = os.path.join(self.d, os.fsdecode(b"hist\xfe"))
        os.makedirs(hist, exist_ok=True)
        with open(res, "rb") as f, open(os.path.join(hist, "2026-11-01.json"), "wb") as g:
            g.write(f.read())
        trace = os.path.join(out, "traces", self.base["runs"][-1]["config"]["id"])
        # (argv, the exit codes it may give, the JSON it prints or writes, a key naming the bad path)
        cases = [
            (["compare", self.base_path, res, "--json"], (0, 1), None, "new"),
            (["compare", self.base_path, res, "--json-out", os.path.join(out, "cmp.json")], (0, 1),
             os.path.join(out, "cmp.json"), "new"),
            (["accept", self.profile, "--results", res, "--json"], (0, 1), None, "results"),
            (["trend", hist, "-o", hist + "-t.html", "--json"], (0,), None, None),  # beside the history
            (["analyze", "--json", trace], (0,), None, "files"),
            (["report", res, "-o", os.path.join(out, "again.html")], (0,), None, None),
        ]
        for argv, codes, written, key in cases:
            with self.subTest(argv[0]):
                p = run_bytes(*argv)
                self.assertIn(p.returncode, codes, p.stderr.decode(errors="replace"))
                self.assertNotIn(b"json.exception", p.stderr)
                self.assertNotIn(b"\xff", p.stdout + p.stderr)
                if argv[0] in ("compare", "accept", "trend", "analyze") and written is None:
                    doc = json.loads(p.stdout)
                    if key:
                        self.assertIn("\ufffd", json.dumps(doc[key], ensure_ascii=False))
                if written:
                    self.assertIn("bad\ufffd", read_json(written)[key])

    def test_control_characters_from_files_never_reach_the_terminal(self):
        title = "\x1b]0;pwned\x07\u009b31m"
        doc = copy.deepcopy(self.base)
        # A split a newer minor version might add is read as unknown, as written (a current file's
        # split must be one it knows): free text that must reach no terminal raw.
        doc["schema_version"] = "2.99.0"
        for r in doc["runs"]:
            r["schema_version"] = "2.99.0"
        doc["runs"][0]["config"]["split"] = title
        failed = copy.deepcopy(doc)
        failed["runs"][0]["status"] = "failed"
        failed["runs"][0]["reason"] = "boom \x1b[2J\r"
        with tempdir() as t:
            esc = write_json(os.path.join(t, "esc.json"), doc)
            esc_failed = write_json(os.path.join(t, "failed.json"), failed)
            os.makedirs(os.path.join(t, "hist"))
            write_json(os.path.join(t, "hist", "2026-11-01.json"), doc)
            write_json(os.path.join(t, "schema.json"), dict(doc, schema="x\x1b]0;pwned\x07"))
            inputs = {f: folder_state(t)[os.path.relpath(f, t)] for f in (esc, esc_failed)}
            cases = [  # (argv, exit code, the stream the text shows in, escaped; for exit 2 the field named)
                (["compare", esc, esc], 0, "stdout", b"]0;pwned"),
                (["compare", esc, esc_failed], 1, "stdout", b"boom \\x1b[2J\\x0d"),  # the ok run failed in NEW
                (["compare", esc, esc, "--json"], 0, "stdout", b"]0;pwned"),
                (["accept", self.profile, "--results", esc_failed], 1, "stdout", b"boom \\x1b[2J"),
                (["report", esc, "-o", os.path.join(t, "r.html")], 0, None, None),
                (["trend", os.path.join(t, "hist"), "-o", os.path.join(t, "t.html")], 0, None, None),
                (["compare", esc, os.path.join(t, "schema.json")], 2, "stderr", b"/schema"),
                (["report", os.path.join(t, "no\x1b]0;such\x07.json")], 2, "stderr", b"\\x1b]0;such\\x07"),
            ]
            for argv, code, where, shown in cases:
                with self.subTest(" ".join(os.path.basename(a) for a in argv)):
                    p = run_bytes(*argv)
                    self.assertEqual(p.returncode, code, p.stderr.decode(errors="replace"))
                    for raw in RAW_CONTROLS:
                        self.assertNotIn(raw, p.stdout + p.stderr, argv)
                    if where:
                        self.assertIn(shown, getattr(p, where))
                    if code == 2:
                        self.assert_one_line(p)
                    if "--json" in argv:
                        labels = [r["label"] for r in json.loads(p.stdout)["runs"]]
                        self.assertTrue(any(title in label for label in labels), labels)
            self.assertEqual({f: folder_state(t)[os.path.relpath(f, t)] for f in (esc, esc_failed)}, inputs)

    def test_every_error_line_is_short(self):
        long = os.path.join(self.d, "a" * 4096)
        deep = os.path.join(self.d, *(["d" * 200] * 30), "r.json")
        cases = [  # (argv, the flag or field the line names)
            (["run", *TINY, "--out", long], "--out"),
            (["run", *TINY, "--out", deep], "--out"),
            (["report", long], "results"),
            (["report", self.base_path, "-o", deep], "--out"),
            (["compare", self.base_path, long], "results"),
            (["compare", self.base_path, self.base_path, "--threshold", "9" * 5000], "--threshold"),
            (["accept", self.profile, "--results", long], "--results"),
            (["trend", long], "history"),
            (["report", self.base_path, "--timeline", "x" * 5000], "--timeline"),
        ]
        before = folder_state(self.d)
        for argv, name in cases:
            with self.subTest(argv[0] + " " + name):
                p = run_bytes(*argv)
                err = self.assert_one_line(p, name)
                self.assertLess(len(p.stderr), 400, err)
        self.assertEqual(folder_state(self.d), before)

    def test_inconsistent_results_are_refused_with_the_json_path(self):
        # A run compare matches by id (a c = 1 alias is left out of the compare, and checked against
        # the run it names on read instead: test_hostile_inputs.py).
        i = next(k for k, r in enumerate(self.base["runs"]) if k > 0 and "alias_of" not in r)

        def config(field, value):
            def change(doc):
                doc["runs"][i]["config"][field] = value
            return change

        def timing(field, value):
            def change(doc):
                if field == "samples_ms":
                    doc["runs"][i]["timing"]["samples_ms"][0] = value
                else:
                    doc["runs"][i]["timing"][field] = value
            return change

        cases = [  # (name, change to NEW, the JSON path named, names both files)
            ("split", config("split", "striped"), f"/runs/{i}/config/split", True),
            ("seq", config("seq", 128), f"/runs/{i}/config/seq", True),
            ("causal", config("causal", False), f"/runs/{i}/config/causal", True),
            ("kernel", config("kernel", "cudnn"), f"/runs/{i}/config/kernel", True),
            ("samples of 1e308", timing("samples_ms", 1e308), f"/runs/{i}/timing/samples_ms/0", False),
            ("negative median", timing("median_ms", -3.0), f"/runs/{i}/timing/median_ms", False),
        ]
        with tempdir() as t:
            out = os.path.join(t, "cmp.json")
            for name, change, path, both in cases:
                with self.subTest(name):
                    doc = copy.deepcopy(self.base)
                    change(doc)
                    neu = write_json(os.path.join(t, "new.json"), doc)
                    with open(neu, "rb") as f:
                        before = f.read()
                    p = run("compare", self.base_path, neu, "--json-out", out)
                    self.assert_one_line(p, path, neu, *([self.base_path] if both else []))
                    self.assertFalse(os.path.exists(out))
                    with open(neu, "rb") as f:
                        self.assertEqual(f.read(), before)
            # How a configuration was measured is not what was measured: these may differ.
            doc = copy.deepcopy(self.base)
            for r in doc["runs"]:
                r["config"].update(seed=7, repeats=20, warmup=5)
            p = run("compare", self.base_path, write_json(os.path.join(t, "new.json"), doc))
            self.assertIn(p.returncode, (0, 1), p.stderr)

    def test_a_wrong_type_in_an_old_file_names_its_path(self):
        def old(doc):
            doc["schema_version"] = "0.3.0"
            for r in doc["runs"]:
                r.pop("schema_version", None)
                r["config"].pop("kernel", None)
            return doc

        cases = [  # (JSON path, value): fields the conversion from 0.x reads
            ("/runs/0/timing/rank_mode", 7),
            ("/runs/1/timeline/intervals/0/kind", []),
            ("/runs/1/metrics/per_rank/0/rank", "0"),
            ("/runs/0/correctness/checked", "yes"),
        ]
        with tempdir() as t:
            for path, value in cases:
                doc = old(copy.deepcopy(self.base))
                keys = path.strip("/").split("/")
                node = doc
                for k in keys[:-1]:
                    node = node[int(k)] if isinstance(node, list) else node[k]
                node[keys[-1]] = value
                f = write_json(os.path.join(t, "old.json"), doc)
                with open(f, "rb") as g:
                    before = g.read()
                for argv in (["report", f, "-o", os.path.join(t, "r.html")], ["compare", f, f],
                             ["accept", self.profile, "--results", f]):
                    with self.subTest(f"{argv[0]} {path}"):
                        p = run(*argv)
                        self.assert_one_line(p, f"{f}: {path}")
                        self.assertNotIn("json.exception", p.stderr)
                self.assertFalse(os.path.exists(os.path.join(t, "r.html")))
                with open(f, "rb") as g:
                    self.assertEqual(g.read(), before)


# Every metric accept knows, so every field a check reads is read.
FUZZ_PROFILE = {
    "name": "fuzz",
    "sweep": TINY_SWEEP,
    "checks": [{"name": m, "metric": m, **({} if m == "correctness" else {"min": -1e300})}
               for m in ("correctness", "attention_tflops", "attention_tflops_per_rank", "attention_tflops_slowest_rank",
                         "attention_tflops_aggregate", "overlap_fraction", "exposed_comm_ms", "imbalance",
                         "work_imbalance", "comm_bandwidth_gbyte_per_s", "comm_bandwidth_fraction", "gpu_throttled",
                         "dropped_sample_fraction", "median_ms", "noise_pct")],
}
# One value of each JSON type; a field is given those of a type other than its own, and an integer
# field a fraction too.
WRONG = ["x", 7, True, None, [], {}]
METRICS = ("time", "tflops", "overlap", "exposed_comm", "imbalance")


def json_type(v):
    return "bool" if isinstance(v, bool) else "number" if isinstance(v, (int, float)) else type(v).__name__


def with_gpu_fields(doc):
    """The results of a tiny CPU sweep, with what a cuda run and an MPI job add (as the schema describes
    them) put on run 0, so the fuzz reaches the fields only those carry."""
    doc = copy.deepcopy(doc)
    r = doc["runs"][0]
    n = len(r["timing"]["samples_ms"])
    r["sm_clock"] = {"method": "clock64 probe", "nominal_mhz": 1980, "threshold_pct": 90, "threshold_mhz": 1782,
                     "recovery_ms": 50, "samples_ms": r["timing"]["samples_ms"], "samples_mhz": [1980] * n,
                     "dropped": [], "dropped_count": 0, "taken": n}
    gpu = {"pci_bus_id": "00000000:01:00.0", "thermal_or_power_limited": False, "clock_event_reasons": []}
    r["gpu_state"] = {"start": [gpu], "end": [gpu]}
    r["kernel_choice"] = {"requested": "ringbench", "chosen": "ringbench", "why": "asked for", "cudnn_plans": {}}
    r["cupti"] = {"traced_pass_ms": 1.0, "clean_median_ms": 1.0, "overhead_pct": 0.0, "window_ms": 1.0,
                  "activity_ms": 1.0, "dropped_records": 0, "ignored_records": 0, "intervals": 3,
                  "metrics": copy.deepcopy(r["metrics"])}
    doc["distributed"] = {"library": "Open MPI", "world_size": 1, "clock_sync": "ping-pong",
                          "ranks": [{"rank": 0, "host": "node", "clock_offset_ns": 0, "clock_rtt_ns": 0}]}
    return doc


def fields(doc):
    """Every field's path (as keys), containers included: each field once, in the first element of an
    array that has it (run 0 is c = 1; a c = 2 run adds what only transfers have)."""
    out, seen = [], set()

    def walk(x, path):
        shape = tuple("*" if isinstance(k, int) else k for k in path)
        if path and shape not in seen:
            seen.add(shape)
            out.append(path)
        items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
        for k, v in items:
            walk(v, path + (k,))

    walk(doc, ())
    return out


def set_at(doc, path, value):
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value


def get_at(doc, path):
    for k in path:
        doc = doc[k]
    return doc


class TypeFuzz(unittest.TestCase):
    def test_a_wrong_type_anywhere_is_exit_2_with_one_line(self):
        with tempdir() as t:
            p = run("run", *TINY, "--rounds", "2", "--out", os.path.join(t, "base"))
            self.assertEqual(p.returncode, 0, p.stderr)
            good = with_gpu_fields(read_json(os.path.join(t, "base", "results.json")))
            base = write_json(os.path.join(t, "good.json"), good)
            profile = write_json(os.path.join(t, "profile.json"), FUZZ_PROFILE)
            with open(base, "rb") as f:
                base_bytes = f.read()

            def commands(path, hist, metric):
                # The pages go beside the history: an output inside an input folder is refused.
                return [["report", path, "-o", hist + "-r.html"],
                        ["compare", base, path, "--metric", metric],
                        ["accept", profile, "--results", path],
                        ["trend", hist, "-o", hist + "-t.html"]]

            # The unchanged document passes every command: a refusal below is the changed field's.
            os.makedirs(os.path.join(t, "ok"))
            write_json(os.path.join(t, "ok", "2026-11-01.json"), good)
            for m in METRICS:
                for argv in commands(base, os.path.join(t, "ok"), m):
                    p = run(*argv)
                    self.assertIn(p.returncode, (0, 1), f"{argv}: {p.stderr}")

            jobs = []
            for i, path in enumerate(fields(good)):
                original = get_at(good, path)
                for value in WRONG + ([0.5] if type(original) is int else []):
                    if json_type(value) != json_type(original) or value == 0.5:
                        jobs.append((len(jobs), path, value, METRICS[i % len(METRICS)]))

            self.assertGreater(len(jobs), 1000)  # every field meets every other JSON type
            # Every case in the ci stage; under a sanitizer, where each command is several times
            # slower, every 29th (a prime stride, so that the wrong values vary along the fields;
            # every command runs each): the ci stage has run them all, this one looks for memory
            # errors, and the readers meet every type under ASan in scripts/fuzz.sh too.
            if SANITIZED:
                jobs = jobs[::29]

            def one(job):
                k, path, value, metric = job
                hist = os.path.join(t, f"h{k}")
                os.makedirs(hist)
                write_json(os.path.join(hist, "2026-11-01.json"), good)
                doc = copy.deepcopy(good)
                set_at(doc, path, value)
                bad = write_json(os.path.join(hist, "2026-11-02.json"), doc)
                problems = []
                for argv in commands(bad, hist, metric):
                    p = subprocess.run([BIN, *argv], capture_output=True, text=True, errors="replace", timeout=120)
                    lines = p.stderr.strip().splitlines()
                    fine = (p.returncode == 0 or (p.returncode == 1 and argv[0] in ("compare", "accept")) or
                            (p.returncode == 2 and len(lines) == 1))
                    if not fine or "json.exception" in p.stderr or "failed:" in p.stderr:
                        problems.append(f"/{'/'.join(map(str, path))} = {json.dumps(value)}: {argv[0]} exit "
                                        f"{p.returncode}: {p.stderr.strip()[-300:]}")
                return problems

            with ThreadPoolExecutor(max_workers=2) as pool:
                problems = [x for found in pool.map(one, jobs) for x in found]
            self.assertEqual(problems[:20], [], f"{len(problems)} of {len(jobs)} fuzzed documents")
            with open(base, "rb") as f:
                self.assertEqual(f.read(), base_bytes, "an input was changed")


if __name__ == "__main__":
    unittest.main()
