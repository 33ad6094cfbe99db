"""`run --trace` for the field's tools, on a small sweep of every variant (ring, allgather,
ring-bidirectional, ulysses, hybrid with U = 2: their all-to-alls are comm like the ring's transfers)
over both transports that run without a GPU (local with 4 ranks; mpi with 2
processes under mpirun). Per configuration, OUT/traces/<id>/rank<N>.json in the shape Meta's HTA
loads, beside one Perfetto file with pids from 1:

- HtaTraces: the files carry, field by field, what HTA reads, and `analyze` on the folder, and on
  the Perfetto file, reproduces the run's own per-rank comm and overlap figures;
- TraceEventFormat: every file validates against the Chrome Trace Event Format
  (trace_event_format.schema.json: required fields per phase, integer pid and tid), names every
  process and thread with `M` events, and has its times in microseconds;
- HtaReadsTheTraces: HTA itself (the pinned version `scripts/pypi-deps.sh tools` installs into
  .deps/pytools, run by hta_client.py in a process of its own) loads every rank of every folder, its
  comm/compute overlap equals `analyze` within 0.1 percentage point per rank, and its temporal and
  idle time breakdowns read the files. Skipped, with the reason, where HTA is not installed.

The link model makes the comm visible on the CPU backend. Each transport's sweep runs once for the
module, HTA once for the class."""
import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
import unittest

import jsonschema

from ringbench_test import BIN, pytool, pytools_run, read_json, run, tempdir

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "trace_event_format.schema.json")
SHAPE = ["--seq", "512", "--variant", "ring,allgather,ring-bidirectional,ulysses,hybrid", "--ulysses-degree", "2",
         "--heads", "4", "--kv-heads", "2",
         "--head-dim", "32", "--link-gbps", "2", "--repeats", "2", "--rounds", "1", "--trace"]
SWEEPS = {  # transport: (world size, the sweep's own flags)
    # The local sweep times the backward too (docs/design.md §3a): its intervals reach HTA as well.
    "local": (4, ["--cp", "4", "--split", "zigzag", "--phase", "fwd,fwd+bwd"]),
    "mpi": (2, ["--transport", "mpi", "--cp", "2", "--split", "zigzag"]),
}
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
VARIANTS = {"ring", "allgather", "ring-bidirectional", "ulysses", "hybrid"}

OUT = {}  # transport: {"dir", "doc", "world", "seconds"}
MPI_SKIP = None  # why the mpi transport cannot run here, or None
TMP = None


def mpi_launcher():
    """(mpirun command prefix, None), or (None, why the mpi transport cannot run here)."""
    mpirun = os.environ.get("RINGBENCH_MPIRUN") or shutil.which("mpirun") or shutil.which("mpiexec")
    if not mpirun:
        return None, "no mpirun on PATH (Debian: openmpi-bin)"
    built = next((l for l in run("--version").stdout.splitlines() if l.startswith("built with:")), None)
    if built is not None and "mpi" not in built.split():
        return None, f"this ringbench was built without MPI ({built})"
    cmd = [mpirun, "--oversubscribe", "-np", str(SWEEPS["mpi"][0])]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd, None


def setUpModule():
    global TMP, MPI_SKIP
    TMP = tempdir()
    for transport, (world, flags) in SWEEPS.items():
        out = os.path.join(TMP.name, transport)
        args = [BIN, "run", *SHAPE, *flags, "--out", out]
        env = None
        if transport == "mpi":
            launcher, MPI_SKIP = mpi_launcher()
            if MPI_SKIP:
                print(f"\nmpi transport not traced: {MPI_SKIP}", file=sys.stderr)
                continue
            args = [*launcher, *args]
            # Open MPI leaks by design at exit; under ASan (the sanitizer stage) that would fail the run.
            asan = ",".join(o for o in (os.environ.get("ASAN_OPTIONS"), "detect_leaks=0") if o)
            env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none", ASAN_OPTIONS=asan)
        t0 = time.perf_counter()
        p = subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 0, f"{transport} sweep failed ({p.returncode}): {p.stderr[-3000:]}"
        OUT[transport] = {"dir": out, "doc": read_json(os.path.join(out, "results.json")), "world": world,
                          "seconds": time.perf_counter() - t0}


def tearDownModule():
    print("\nsweeps traced: " + ", ".join(f"{t} {o['seconds']:.1f} s" for t, o in OUT.items()), file=sys.stderr)
    TMP.cleanup()


def transports():
    return list(OUT)


def folder(transport, run_doc):
    return os.path.join(OUT[transport]["dir"], "traces", run_doc["config"]["id"])


def folders():
    """(transport, run record, per-rank folder) for every configuration traced."""
    return [(t, r, folder(t, r)) for t in transports() for r in OUT[t]["doc"]["runs"]]


def trace_files():
    """(transport, run record, path, kind) of every trace file: the Perfetto file and each rank's."""
    out = []
    for t, r, d in folders():
        out.append((t, r, d + ".json", "perfetto"))
        out += [(t, r, os.path.join(d, f"rank{i}.json"), "rank") for i in range(OUT[t]["world"])]
    return out


@functools.lru_cache(maxsize=None)
def analyze(path):
    p = run("analyze", "--json", path)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


class TransportTest(unittest.TestCase):
    def require(self, transport):
        if transport == "mpi" and MPI_SKIP:
            self.skipTest(f"mpi transport: {MPI_SKIP}")


class Sweeps(TransportTest):
    def test_the_sweeps_cover_every_variant(self):
        for t in transports():
            with self.subTest(transport=t):
                runs = OUT[t]["doc"]["runs"]
                self.assertEqual({r["config"]["variant"] for r in runs}, VARIANTS)
                self.assertTrue(all(r["status"] == "ok" for r in runs))
                self.assertEqual({r["config"]["transport"] for r in runs}, {t})
        self.assertEqual({r["config"]["phase"] for r in OUT["local"]["doc"]["runs"]}, {"fwd", "fwd+bwd"})

    def test_the_mpi_transport_was_traced(self):
        self.require("mpi")
        self.assertIn("mpi", OUT)


class HtaTraces(TransportTest):
    def test_one_file_per_rank_with_what_hta_reads(self):
        for t, r, d in folders():
            world = OUT[t]["world"]
            files = sorted(f for f in os.listdir(d) if f.endswith(".json"))
            self.assertEqual(files, [f"rank{i}.json" for i in range(world)])
            for rank in range(world):
                path = os.path.join(d, f"rank{rank}.json")
                with self.subTest(path=path):
                    with open(path) as f:
                        text = f.read()
                    # HTA may find the rank with this pattern on the raw text.
                    self.assertEqual(int(re.search(r'"rank":\s+(\d+)', text).group(1)), rank)
                    doc = json.loads(text)
                    self.assertEqual(doc["distributedInfo"]["world_size"], world)
                    self.assertEqual(doc["distributedInfo"]["backend"], f"ringbench cpu/{t}")
                    events = [e for e in doc["traceEvents"] if e["ph"] == "X"]
                    device = [e for e in events if e["cat"] in DEVICE_CATS]
                    self.assertTrue(device)
                    launches = {e["args"]["correlation"]: e["ts"] for e in events if e["cat"] == "cuda_runtime"}
                    steps = sorted(e["ts"] for e in events if re.match(r"^ProfilerStep#\d+$", e["name"]))
                    self.assertEqual(len(steps), 2)
                    comm = 0
                    for e in device:
                        self.assertIsInstance(e["args"]["stream"], int)
                        self.assertGreaterEqual(e["args"]["stream"], 0)
                        self.assertGreaterEqual(e["args"]["correlation"], 0)
                        self.assertGreaterEqual(e["pid"], 1)
                        self.assertLess(launches[e["args"]["correlation"]], steps[-1])  # HTA's filter keeps it
                        is_comm = bool(re.match(r"^nccl.*Kernel", e["name"]))
                        self.assertEqual(is_comm, e["args"]["kind"] == "comm", e["name"])
                        comm += is_comm
                    self.assertGreater(comm, 0, "the link model's transfers must show as comm")
                    # A stream is serial, as a CUDA stream is: HTA's idle time assumes it.
                    by_stream = {}
                    for e in device:
                        by_stream.setdefault(e["args"]["stream"], []).append((e["ts"], e["dur"]))
                    for stream, xs in by_stream.items():
                        xs.sort()
                        for (a, da), (b, _) in zip(xs, xs[1:]):
                            self.assertLessEqual(a + da, b, f"stream {stream}: two events at once")

    def test_perfetto_file_numbers_pids_from_one_and_never_overruns_a_track(self):
        for t, r, d in folders():
            doc = read_json(d + ".json")
            self.assertEqual(doc["otherData"]["ringbench_trace_version"], 2)
            self.assertEqual(doc["otherData"]["ranks"], [{"pid": i + 1, "rank": i} for i in range(OUT[t]["world"])])
            self.assertNotIn("displayTimeUnit", doc)
            tracks = {}
            for e in doc["traceEvents"]:
                self.assertGreaterEqual(e["pid"], 1)
                if e["ph"] == "X":
                    tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["dur"]))
            for key, xs in tracks.items():
                xs.sort()
                for (a, da), (b, _) in zip(xs, xs[1:]):
                    self.assertLessEqual(a + da, b, f"{d}.json track {key}: an event overruns the next")

    def test_analyze_reproduces_the_runs_own_overlap(self):
        for t, r, d in folders():
            want = {m["rank"]: m for m in r["metrics"]["per_rank"]}
            for source in (d, d + ".json"):
                with self.subTest(source=os.path.basename(source)):
                    got = {m["rank"]: m for m in analyze(source)["metrics"]["per_rank"]}
                    self.assertEqual(sorted(got), list(range(OUT[t]["world"])))
                    for rank, m in want.items():
                        self.assertAlmostEqual(got[rank]["comm_time_ms"], m["comm_time_ms"], places=9)
                        self.assertAlmostEqual(got[rank]["attention_time_ms"], m["attention_time_ms"], places=9)
                        if m["overlap_fraction"] is None:
                            self.assertIsNone(got[rank]["overlap_fraction"])
                        else:
                            self.assertAlmostEqual(got[rank]["overlap_fraction"], m["overlap_fraction"], places=9)
            # HTA's default filter changes nothing on ringbench's own files.
            p = run("analyze", "--json", "--hta-drop-last-step", d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(all(f["excluded_last_profiler_step"] == 0 for f in json.loads(p.stdout)["files"]))

    def test_a_folder_without_traces_is_bad_input(self):
        out = OUT["local"]["dir"]
        p = run("analyze", out)  # results.json is not a trace: exit 2, named
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        empty = os.path.join(TMP.name, "empty")
        os.makedirs(empty, exist_ok=True)
        p = run("analyze", empty)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("one trace file per rank", p.stderr)


class TraceEventFormat(TransportTest):
    """The Trace Event Format that Perfetto and chrome://tracing read. No maintained package checks
    it (see trace_event_format.schema.json), so the rules are the project's own schema, applied by
    python3-jsonschema, plus the checks a schema cannot state: every pid and (pid, tid) an event
    uses is named by an `M` event, and ts/dur are microseconds (the intervals of results.json, in
    ms, times 1000)."""

    @classmethod
    def setUpClass(cls):
        cls.schema = read_json(SCHEMA)
        jsonschema.Draft202012Validator.check_schema(cls.schema)
        cls.validator = jsonschema.Draft202012Validator(cls.schema)

    def errors(self, doc):
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in self.validator.iter_errors(doc)]

    def test_every_trace_validates_against_the_schema(self):
        n = 0
        for t, r, path, kind in trace_files():
            with self.subTest(path=path):
                doc = read_json(path)
                self.assertEqual(self.errors(doc)[:5], [])
                # ringbench writes complete events and metadata only, times from the pass start,
                # pids from 1 (Perfetto's pid 0 is the idle process).
                self.assertEqual({e["ph"] for e in doc["traceEvents"]}, {"M", "X"})
                for e in doc["traceEvents"]:
                    self.assertGreaterEqual(e["pid"], 1)
                    self.assertGreaterEqual(e["tid"], 0)
                    if e["ph"] == "X":
                        self.assertGreaterEqual(e["ts"], 0)
                n += 1
        self.assertEqual(n, sum(1 + OUT[t]["world"] for t, _, _ in folders()))

    def test_the_schema_refuses_what_the_format_does_not_allow(self):
        good = {"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "comm"}},
                                {"ph": "X", "name": "a", "cat": "c", "pid": 1, "tid": 2, "ts": 1.5, "dur": 2}]}
        self.assertEqual(self.errors(good), [])
        bad = [
            ("X without dur", 1, {"dur": None}),
            ("X without ts", 1, {"ts": None}),
            ("X without name", 1, {"name": None}),
            ("a negative dur", 1, {"dur": -1}),
            ("ts as text", 1, {"ts": "1.5"}),
            ("a float pid", 1, {"pid": 1.5}),
            ("a pid as text", 1, {"pid": "1"}),
            ("a tid past int32", 1, {"tid": 2**31}),
            ("a negative pid", 1, {"pid": -1}),
            ("an unknown phase", 1, {"ph": "Z"}),
            ("thread_name without args.name", 0, {"args": {}}),
            ("an unknown metadata name", 0, {"name": "thread_title"}),
            ("a sort index as text", 0, {"name": "thread_sort_index", "args": {"sort_index": "1"}}),
        ]
        for what, i, change in bad:
            with self.subTest(what=what):
                doc = json.loads(json.dumps(good))
                for k, v in change.items():
                    if v is None:
                        del doc["traceEvents"][i][k]
                    else:
                        doc["traceEvents"][i][k] = v
                self.assertNotEqual(self.errors(doc), [], what)
        self.assertNotEqual(self.errors({"traceEvents": [], "displayTimeUnit": "us"}), [])
        self.assertNotEqual(self.errors({"events": []}), [])

    def test_every_process_and_thread_is_named_by_metadata_events(self):
        for t, r, path, kind in trace_files():
            with self.subTest(path=path):
                doc = read_json(path)
                process, thread = {}, {}
                for e in doc["traceEvents"]:
                    if e["ph"] == "M" and e["name"] == "process_name":
                        self.assertNotIn(e["pid"], process, "one name per process")
                        process[e["pid"]] = e["args"]["name"]
                    elif e["ph"] == "M" and e["name"] == "thread_name":
                        self.assertNotIn((e["pid"], e["tid"]), thread, "one name per thread")
                        thread[(e["pid"], e["tid"])] = e["args"]["name"]
                used = {(e["pid"], e["tid"]) for e in doc["traceEvents"] if e["ph"] != "M"}
                self.assertTrue(used)
                self.assertEqual({pid for pid, _ in used} - set(process), set(), "a process without a name")
                self.assertEqual(used - set(thread), set(), "a thread without a name")
                for pid, name in process.items():
                    self.assertEqual(name, f"rank {pid - 1}")
                self.assertTrue(all(thread.values()))

    def test_times_are_microseconds(self):
        for t, r, path, kind in trace_files():
            with self.subTest(path=path):
                doc = read_json(path)
                other = doc["otherData"]
                origin = other["origin_ns"]
                tl = r["timeline"]
                self.assertFalse(tl["truncated"])
                # The pass window: ns in otherData, ms in results.json.
                self.assertAlmostEqual((other["window_end_ns"] - other["window_begin_ns"]) / 1e6, tl["window_ms"],
                                       places=6)
                if kind == "perfetto":
                    rank_of = {m["pid"]: m["rank"] for m in other["ranks"]}
                    events = [e for e in doc["traceEvents"] if e["ph"] == "X"]
                    key = lambda e: (rank_of[e["pid"]], e["name"])  # noqa: E731
                else:
                    events = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] in DEVICE_CATS]
                    key = lambda e: (other["rank"], e["args"]["ringbench_name"])  # noqa: E731
                want = sorted((iv["rank"], iv["name"], round(iv["begin_ms"] * 1e6), round(iv["end_ms"] * 1e6))
                              for iv in tl["intervals"] if kind == "perfetto" or iv["rank"] == other["rank"])
                got = sorted((*key(e), round(e["ts"] * 1e3) + origin, round((e["ts"] + e["dur"]) * 1e3) + origin)
                             for e in events)
                self.assertEqual(len(got), len(want))
                for g, w in zip(got, want):  # the same interval, to the nanosecond (±1 from the µs double)
                    self.assertEqual(g[:2], w[:2])
                    self.assertLessEqual(abs(g[2] - w[2]), 1, (g, w))
                    self.assertLessEqual(abs(g[3] - w[3]), 1, (g, w))
                # Every event lies inside the pass window, which it would not in ns or ms.
                lo, hi = (other["window_begin_ns"] - origin) / 1e3, (other["window_end_ns"] - origin) / 1e3
                for e in events:
                    self.assertGreaterEqual(e["ts"], lo - 1e-3)
                    self.assertLessEqual(e["ts"] + e["dur"], hi + 1e-3)


class HtaReadsTheTraces(TransportTest):
    """Meta's Holistic Trace Analysis on every per-rank folder, as a user runs it."""

    @classmethod
    def setUpClass(cls):
        cls.version, reason = pytool("holistictraceanalysis", "hta.trace_analysis")
        if reason:
            raise unittest.SkipTest(reason)
        t0 = time.perf_counter()
        p = pytools_run(os.path.join(HERE, "hta_client.py"), *(d for _, _, d in folders()))
        cls.seconds = time.perf_counter() - t0
        if p.returncode != 0:
            raise AssertionError(f"HTA failed on the traces ({p.returncode}): {p.stderr[-3000:]}")
        cls.hta = json.loads(p.stdout)
        cls.worst = {"ns": 0.0, "default": 0.0}

    @classmethod
    def tearDownClass(cls):
        print(f"\nHTA {cls.hta['hta_version']} read {len(cls.hta['folders'])} folders in {cls.seconds:.1f} s; "
              f"largest |HTA - analyze| overlap: {cls.worst['ns']:.4f} points as written (ns), "
              f"{cls.worst['default']:.4f} with HTA's default rounding to whole us", file=sys.stderr)

    def of(self, transport):
        self.require(transport)
        return [(r, d, self.hta["folders"][d]) for t, r, d in folders() if t == transport]

    def check_loads_every_rank(self, transport):
        self.assertEqual(self.hta["hta_version"], self.version)
        for r, d, modes in self.of(transport):
            for mode, got in modes.items():
                with self.subTest(folder=os.path.basename(d), mode=mode):
                    world = OUT[transport]["world"]
                    self.assertEqual(got["ranks"], list(range(world)))
                    self.assertEqual(got["trace_files"], {str(i): f"rank{i}.json" for i in range(world)})

    def test_hta_loads_every_rank_local(self):
        self.check_loads_every_rank("local")

    def test_hta_loads_every_rank_mpi(self):
        self.check_loads_every_rank("mpi")

    def check_overlap(self, transport):
        """As written (HTA_DISABLE_NS_ROUNDING=1), HTA's overlap equals analyze's within 0.1 point.
        With HTA's default rounding each event loses under 1 us at either end, which moves the
        overlap by at most 2 (2 comm events + compute events) us / comm time: that bound holds."""
        for r, d, modes in self.of(transport):
            want = {m["rank"]: m for m in analyze(d)["metrics"]["per_rank"]}
            counts = {}
            for rank in want:
                doc = read_json(os.path.join(d, f"rank{rank}.json"))
                dev = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] in DEVICE_CATS]
                n_comm = sum(e["args"]["kind"] == "comm" for e in dev)
                counts[rank] = (n_comm, len(dev) - n_comm)
            for mode, got in modes.items():
                for rank, m in want.items():
                    with self.subTest(folder=os.path.basename(d), mode=mode, rank=rank):
                        hta = got["overlap_pct"][str(rank)]
                        if m["overlap_fraction"] is None:  # no comm on this rank: HTA divides 0 by 0
                            self.assertIsNone(hta)
                            continue
                        self.assertIsNotNone(hta)
                        diff = abs(hta - 100 * m["overlap_fraction"])
                        type(self).worst[mode] = max(type(self).worst[mode], diff)
                        if mode == "ns":
                            self.assertLessEqual(diff, 0.1, f"HTA {hta} vs analyze {100 * m['overlap_fraction']}")
                        else:
                            n_comm, n_other = counts[rank]
                            comm_us = m["comm_time_ms"] * 1e3
                            slack = comm_us - 2 * n_comm
                            bound = 200 * (2 * n_comm + n_other) / slack + 0.005 if slack > 0 else math.inf
                            self.assertLessEqual(diff, max(0.1, bound), f"HTA {hta} vs analyze")
                            self.assertTrue(0 <= hta <= 100)

    def test_overlap_equals_analyze_local(self):
        self.check_overlap("local")

    def test_overlap_equals_analyze_mpi(self):
        self.check_overlap("mpi")

    def check_breakdowns(self, transport):
        """HTA's temporal breakdown and idle time read the files: a row for every rank (and every
        stream of it), times that are finite and not negative. Of their values only those ringbench
        also computes are compared: HTA's compute time is analyze's compute time, and its
        non-compute time (kernels running, none of them compute) is analyze's busy time less it."""
        for r, d, modes in self.of(transport):
            per_rank = {m["rank"]: m for m in analyze(d)["metrics"]["per_rank"]}
            for mode, got in modes.items():
                with self.subTest(folder=os.path.basename(d), mode=mode):
                    rows = {row["rank"]: row for row in got["temporal"]}
                    self.assertEqual(sorted(rows), got["ranks"])
                    for rank, row in rows.items():
                        for k in ("idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)"):
                            ok = row[k] is not None and math.isfinite(row[k]) and row[k] >= 0
                            self.assertTrue(ok, (rank, k, row))
                        events = len(read_json(os.path.join(d, f"rank{rank}.json"))["traceEvents"])
                        tol = 1e-3 if mode == "ns" else 2.0 * events  # us; whole-us rounding moves each edge by < 1
                        m = per_rank[rank]
                        self.assertAlmostEqual(row["compute_time(us)"], m["compute_time_ms"] * 1e3, delta=tol)
                        self.assertAlmostEqual(row["non_compute_time(us)"],
                                               (m["busy_time_ms"] - m["compute_time_ms"]) * 1e3, delta=tol)
                    seen = {}
                    for row in got["idle"]:
                        self.assertIn(row["category"], {"host_wait", "kernel_wait", "other"})
                        self.assertTrue(row["idle_time"] is not None and row["idle_time"] >= 0, row)
                        seen.setdefault(row["rank"], set()).add(row["stream"])
                    self.assertEqual({int(k): set(v) for k, v in got["streams"].items()}, seen)
                    for rank in got["ranks"]:  # the streams HTA found are the files' own
                        doc = read_json(os.path.join(d, f"rank{rank}.json"))
                        streams = {e["args"]["stream"] for e in doc["traceEvents"]
                                   if e["ph"] == "X" and e["cat"] in DEVICE_CATS}
                        self.assertEqual(seen[rank], streams)

    def test_temporal_and_idle_breakdowns_read_the_files_local(self):
        self.check_breakdowns("local")

    def test_temporal_and_idle_breakdowns_read_the_files_mpi(self):
        self.check_breakdowns("mpi")


if __name__ == "__main__":
    unittest.main()
