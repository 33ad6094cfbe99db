"""Identical output (issue 29): what ringbench writes and prints, held against golden files written
by the code from before the results record, the metric registry and the sweep's stages were
restructured, so that a restructuring shows it changed nothing a user sees.

- GoldenSweeps: fixed CPU sweeps with a fixed seed (a grid of every split and variant, and small
  sweeps that fail, throttle, stop or sample adaptively by injected fault) write results.json and
  results.jsonl. mask_results() replaces every field that derives from a measured time or from the
  machine; the rest (schema, config, ids, plan, correctness, statuses and reasons, the order of the
  runs, the round layout, the key set of every object) must equal tests/data/golden/sweeps/.
- GoldenVerdicts: compare, accept, trend, report and analyze over stored inputs (the fixtures in
  tests/data/golden/inputs/, tests/data/results-0.3.0-h200.json, tests/data/kineto/ and the
  acceptance profiles) must exit, print and write byte for byte what tests/data/golden/verdicts/
  holds, the temporary folder they ran in written as <tmp>.

RINGBENCH_UPDATE_GOLDEN=1 rewrites the expected files with the binary under test (after a change
of output made on purpose: review the diff); RINGBENCH_UPDATE_GOLDEN=inputs also remakes the input
fixtures from a fresh sweep first, which changes every verdict file with them. Nothing here reads a
clock: a measured time only ever reaches a comparison masked."""
import copy
import difflib
import json
import math
import os
import shutil
import unittest

from ringbench_test import ARTIFACT_DIR, SOURCE_DIR, folder_state, read_json, read_jsonl, run, tempdir

GOLDEN = os.path.join(SOURCE_DIR, "tests", "data", "golden")
UPDATE = os.environ.get("RINGBENCH_UPDATE_GOLDEN", "")

MEASURED = "<measured>"
MACHINE = "<machine>"
BUILD = "<build>"

# timing: kept only what the sweep's flags fix (never a clock): the layout of the rounds, the
# stopping rule asked for and how the CPU threads were bound. Every other field (min/median/mean/p90/p99/max/stdev_ms, noise_pct,
# stopped_by, whose text carries the measured noise under --max-noise) is masked; the sample lists
# (samples_ms, machine_probe_ms, machine_probe_core_spread) keep their length, each element masked.
TIMING_KEPT = {"count", "rounds", "rounds_planned", "round_counts", "warmup", "interleaved", "clock",
               "machine_probe_version", "stopping", "cpu_binding"}
TIMING_LISTS = {"samples_ms", "machine_probe_ms", "machine_probe_core_spread"}

# metrics (the run's and each of metrics.per_rank[]): every time of the median pass and what is
# divided by one (rates, fractions of time, the measured imbalance and which rank was slowest).
# Kept: comm_bytes, comm_basis, imbalance_basis, work_imbalance (the plan's), rank_count,
# attention_tflops_gpus, rank, interval_count, and the step numbers of step_times and steps.
METRICS_MEASURED = {
    "attention_tflops", "attention_tflops_aggregate", "attention_tflops_slowest_rank", "attention_time_ms",
    "busy_time_ms", "comm_bandwidth_gbyte_per_s", "comm_in_flight_ms", "comm_time_ms", "compute_time_ms",
    "critical_path_ms", "eager_minus_graph_ms", "exposed_comm_ms", "exposed_comm_ms_max", "imbalance",
    "launch_overhead_ms", "memory_time_ms", "overlap_fraction", "overlap_time_ms", "pass_time_ms", "slowest_rank",
    "tail_ms", "timeline_pass_ms", "window_ms",
}

# model: the program simulator reschedules the median pass's measured op times, so every number it
# gives is measured (kind and basis are kept; its timeline's times are masked as the run's).
MODEL_MEASURED = {"compute_critical_path_ms", "exposed_comm_ms_max", "exposed_comm_ms_mean", "idle_ms_max",
                  "measured_over_model", "measured_pass_ms", "overlap_fraction", "pass_ms"}


def _mask_metrics(m):
    for k in METRICS_MEASURED & m.keys():
        m[k] = MEASURED
    for step in m.get("step_times") or []:
        step["time_ms"] = MEASURED
    for rank in m.get("per_rank") or []:
        _mask_metrics(rank)
        for step in rank.get("steps") or []:
            step["time_ms"] = MEASURED


def mask_record(r):
    """One run of results.json or one line of results.jsonl, masked in place (see mask_results)."""
    t = r.get("timing")
    if isinstance(t, dict):
        for k in t:
            if k in TIMING_LISTS and isinstance(t[k], list):
                t[k] = [MEASURED] * len(t[k])
            elif k not in TIMING_KEPT:
                t[k] = MEASURED
    if isinstance(r.get("metrics"), dict):
        _mask_metrics(r["metrics"])
    for part in (r.get("phase_metrics") or {}).values():  # each part of a pass with a backward (2.10.0)
        _mask_metrics(part)
    if isinstance(r.get("model"), dict):
        for k in MODEL_MEASURED & r["model"].keys():
            r["model"][k] = MEASURED
    # The median pass's intervals, and (2.15.0) where the program simulator scheduled them: their
    # times are measured; which intervals there are (rank, kind, lane, name, step, bytes, in this
    # order) is fixed by the plan, as two sweeps show.
    for tl in (r.get("timeline"), (r.get("model") or {}).get("timeline")):
        if isinstance(tl, dict):
            tl["window_ms"] = MEASURED
            for iv in tl.get("intervals") or []:
                iv["begin_ms"] = iv["end_ms"] = MEASURED
    if isinstance(r.get("sm_clock"), dict):
        # On the cpu backend the clock is the one --inject-fault throttle plants (constants); the
        # times of its samples are measured.
        r["sm_clock"]["samples_ms"] = [MEASURED] * len(r["sm_clock"].get("samples_ms") or [])
    for p in r.get("placement") or []:  # which CPU or GPU ran each rank: the machine's
        for k in ("host", "device"):
            if k in p:
                p[k] = MACHINE
    for k in ("cupti", "gpu_state"):  # measured on a GPU; null or absent on the cpu backend
        if r.get(k) is not None:
            r[k] = MEASURED
    return r


def mask_results(doc):
    """A results document with every field that derives from a measured time or from the machine
    replaced by a placeholder, keeping each key (so a field added, dropped or renamed still shows):
    - tool.version, tool.git_sha, tool.cuda_build, tool.build_type: the build that ran, not what it
      measured (tool.device, which only a CUDA build writes, is dropped: these sweeps run the cpu
      backend, and a build without CUDA must match the same files); run_time: when it ran
      (tool.command_line stays: the sweeps run in their own folder with relative paths);
    - host: the machine (name, CPU, GPUs, libraries and their paths);
    - per run: timing, metrics, model, timeline, sm_clock, cupti and gpu_state as mask_record says.
    No field names which pass was the median; what depends on that choice is its times, masked.
    Kept whole: correctness (the errors against the float64 reference are the same to the last bit
    on every run of a fixed seed, float32 included), plan, config, status, reason, and the sweep's
    `stopped`."""
    doc = copy.deepcopy(doc)
    for k in ("version", "git_sha", "cuda_build", "build_type"):
        if k in doc.get("tool", {}):
            doc["tool"][k] = BUILD
    doc.get("tool", {}).pop("device", None)
    if "run_time" in doc:
        doc["run_time"] = {k: MEASURED for k in doc["run_time"]}
    if "host" in doc:
        doc["host"] = MACHINE
    for r in doc.get("runs", []):
        mask_record(r)
    return doc


def as_lines(header, records):
    """The golden text of a sweep: its header (every top-level field but the runs) on the first
    line, then one record a line, keys sorted, so a diff names the run that changed."""
    out = [] if header is None else [json.dumps(header, sort_keys=True)]
    return "\n".join(out + [json.dumps(r, sort_keys=True) for r in records]) + "\n"


def first_differences(want, got, path="", out=None, limit=20):
    """The JSON paths where two documents differ (at most `limit`), for a failure message."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(want.keys() | got.keys()):
            if k not in got or k not in want:
                out.append(f"{path}/{k}: {'only in the golden file' if k in want else 'new'}")
            else:
                first_differences(want[k], got[k], f"{path}/{k}", out, limit)
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got)):
            first_differences(a, b, f"{path}/{i}", out, limit)
    elif want != got:
        out.append(f"{path}: golden {json.dumps(want)[:200]}, now {json.dumps(got)[:200]}")
    return out[:limit]


def keep_artifact(name, text):
    os.makedirs(ARTIFACT_DIR, exist_ok=True)
    path = os.path.join(ARTIFACT_DIR, "golden-" + name.replace("/", "-"))
    write_text(path, text)
    return path


def read_text(path):
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read()


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.write(text)


# Three configurations of a small shape (64 tokens, c = 1, 2, 4, full attention in float64), for the
# sweeps that show one path of a configuration's life each.
SMALL = ["--seq", "64", "--cp", "1,2,4", "--split", "zigzag", "--variant", "ring", "--heads", "4", "--kv-heads", "1",
         "--head-dim", "8", "--no-causal", "--dtype", "float64", "--seed", "3", "--warmup", "0"]

# (name, argv in the sweep's folder, exit code, whether results.jsonl is compared too)
SWEEPS = [
    # Every split and variant at S = 96, 100 and 2^20, c = 1 to 4: S = 100 breaks divisibility rules
    # and ring-bidirectional's even halves, 2^20 holds more than --memory-limit, and configuration
    # 13 (S = 96, c = 2, zigzag, allgather) has a corrupted output: correctness over tolerance,
    # status failed, its timing kept.
    ("grid", ["run", "grid.json", "--rounds", "1", "--skip-invalid", "--memory-limit", "0.05",
              "--inject-fault", "corrupt@13"], 1, False),
    # Round 1 of configuration 1 reads 500 of a nominal 1000 MHz: its samples leave the statistics.
    ("throttled-round", ["run", *SMALL, "--repeats", "6", "--rounds", "3", "--inject-fault", "throttle@1/1",
                         "--throttle-recovery", "0"], 0, True),
    # Every sample of configuration 1 throttled: failed, timing null, sm_clock kept.
    ("throttled-all", ["run", *SMALL, "--repeats", "3", "--rounds", "3", "--inject-fault", "throttle@1",
                       "--throttle-recovery", "0"], 1, True),
    # Round 2 of configuration 2 throws: failed with round 1 kept, in a sweep run back to back.
    ("round-failure", ["run", *SMALL, "--repeats", "4", "--rounds", "2", "--no-interleave", "--inject-fault",
                       "throw@2/2"], 1, True),
    # A fatal error in configuration 1 stops the sweep: the rest are not run, results.json says why.
    ("fatal", ["run", *SMALL, "--repeats", "2", "--rounds", "2", "--inject-fault", "fatal@1"], 1, True),
    # The backward (docs/design.md §3a) of both designs and the gather, timed with the forward and
    # alone; c = 1 runs each phase once; configuration 7 (c = 4, fwd+bwd, follow) reads its first
    # step's K/V at every backward step: its output passes and its gradients fail.
    ("backward", ["run", "--seq", "64", "--cp", "1,4", "--split", "zigzag", "--variant", "ring,allgather", "--heads",
                  "4", "--kv-heads", "1", "--head-dim", "8", "--no-causal", "--dtype", "float64", "--seed", "3",
                  "--warmup", "0", "--phase", "fwd+bwd,bwd", "--dkv", "reverse,follow", "--repeats", "2", "--rounds",
                  "1", "--inject-fault", "wrong-block@7"], 1, True),
    # Packed documents (docs/design.md §3c) under every split, doc-zigzag padding them: the spec, the
    # lengths and the padding in config and id, plans within documents, steps with no unmasked pair
    # marked skipped in the timeline, forward and backward.
    ("packed", ["run", "--seq", "48", "--cp", "2", "--split", "contiguous,zigzag,striped,doc-zigzag", "--heads", "2",
                "--kv-heads", "1", "--head-dim", "8", "--dtype", "float64", "--documents", "5+30+13",
                "--pad-documents", "--phase", "fwd+bwd", "--warmup", "0", "--repeats", "1", "--rounds", "1"], 0, True),
    # --max-noise 1000% is met by any samples, so sampling stops at --rounds and --min-samples.
    ("adaptive", ["run", *SMALL, "--repeats", "4", "--rounds", "2", "--max-noise", "1000", "--min-samples", "3"],
     0, True),
]


class GoldenSweeps(unittest.TestCase):
    def check(self, name, text):
        path = os.path.join(GOLDEN, "sweeps", name)
        if UPDATE:
            write_text(path, text)
            return
        want = read_text(path)
        if text == want:
            return
        kept = keep_artifact(name, text)
        lines_w, lines_g = want.splitlines(), text.splitlines()
        diffs = []
        if len(lines_w) != len(lines_g):
            diffs.append(f"{len(lines_g)} lines, the golden file has {len(lines_w)}")
        for i, (a, b) in enumerate(zip(lines_w, lines_g)):
            if a != b:
                where = "header" if i == 0 else f"line {i + 1}"
                diffs += [f"{where}{d}" for d in first_differences(json.loads(a), json.loads(b))]
            if len(diffs) >= 20:
                break
        self.fail(f"{name} differs from {path} (now: {kept}):\n  " + "\n  ".join(diffs[:20]))

    def test_fixed_sweeps_write_what_the_golden_files_hold(self):
        for name, argv, code, with_lines in SWEEPS:
            with self.subTest(name), tempdir() as d:
                shutil.copy(os.path.join(GOLDEN, "grid.json"), d)
                p = run(*argv, "--out", "out", cwd=d)
                self.assertEqual(p.returncode, code, p.stderr[-3000:])
                doc = read_json(os.path.join(d, "out", "results.json"))
                masked = mask_results(doc)
                self.check(f"{name}.results.jsonl", as_lines({k: v for k, v in masked.items() if k != "runs"},
                                                             masked["runs"]))
                if with_lines:
                    lines = [mask_record(r) for r in read_jsonl(os.path.join(d, "out", "results.jsonl"))]
                    self.check(f"{name}.lines.jsonl", as_lines(None, lines))


# ----- the stored inputs of the verdicts -----

# The fixed sweep behind inputs/base.json: 12 configurations in float64, 6 samples over 2 rounds.
BASE_SWEEP = ["run", "--seq", "256", "--cp", "1,2,4", "--split", "contiguous,zigzag", "--variant", "ring,allgather",
              "--heads", "4", "--kv-heads", "2", "--head-dim", "16", "--dtype", "float64", "--repeats", "6",
              "--rounds", "2", "--warmup", "1", "--seed", "1"]


def _stats(samples):
    s = sorted(samples)

    def pct(q):
        pos = q / 100 * (len(s) - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, len(s) - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    mean = sum(s) / len(s)
    stdev = math.sqrt(sum((x - mean) ** 2 for x in s) / (len(s) - 1)) if len(s) > 1 else 0.0
    return {"count": len(s), "min_ms": s[0], "max_ms": s[-1], "median_ms": pct(50), "p90_ms": pct(90),
            "p99_ms": pct(99), "mean_ms": mean, "stdev_ms": stdev, "noise_pct": 100 * stdev / mean if mean > 0 else 0.0}


def _scale_times(node, f):
    """Every time under node multiplied by f, and every rate divided by it."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, (dict, list)):
                _scale_times(v, f)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                if k.endswith("_ms") or k in ("idle_ms_max", "exposed_comm_ms_mean"):
                    node[k] = v * f
                elif "tflops" in k and k != "attention_tflops_gpus" or k == "comm_bandwidth_gbyte_per_s":
                    node[k] = v / f
    elif isinstance(node, list):
        for x in node:
            _scale_times(x, f)


def plant(run_, factors, keep=None):
    """A run whose i-th timed sample is multiplied by factors[i] (one factor: all of them), its
    summary recomputed as ringbench computes it, and the median pass's times (metrics, timeline,
    model) scaled by the change of the median. keep: only the first `keep` samples of each round."""
    r = copy.deepcopy(run_)
    t = r["timing"]
    samples, counts, at = [], [], 0
    for n in t["round_counts"]:
        part = t["samples_ms"][at:at + n]
        at += n
        part = part[:keep] if keep else part
        samples += part
        counts.append(len(part))
    factors = factors if isinstance(factors, list) else [factors] * len(samples)
    new = [x * k for x, k in zip(samples, factors)]
    ratio = _stats(new)["median_ms"] / t["median_ms"]
    t.update(_stats(new), samples_ms=new, round_counts=counts)
    for k in ("metrics", "timeline"):
        _scale_times(r[k], ratio)
    for k in MODEL_MEASURED - {"measured_over_model", "overlap_fraction"}:
        if isinstance(r["model"].get(k), (int, float)):
            r["model"][k] *= ratio
    r["model"]["measured_over_model"] *= ratio
    return r


def failed(run_, reason):
    r = copy.deepcopy(run_)
    r["status"], r["reason"] = "failed", reason
    r["correctness"].update(passed=False, over_tolerance=1)
    return r


def dump(path, doc, indent=1):
    write_text(path, json.dumps(doc, indent=indent, sort_keys=True) + "\n")


def make_accept_inputs(inputs):
    """accept-base.json: acceptance-cpu.json's own sweep, as `accept` runs it (the timelines and the
    model left out: accept reads neither), and accept-changed.json derived from it: one run failed (planted). accept
    judges only results of its profile's own sweep (base.json ran another: the refusal's case)."""
    with tempdir() as d:
        p = run("accept", os.path.join(SOURCE_DIR, "profiles", "acceptance-cpu.json"), "--out", "out", cwd=d)
        assert p.returncode == 0, p.stderr
        base = read_json(os.path.join(d, "out", "results.json"))
    for r in base["runs"]:
        r.pop("timeline", None)
        r.pop("model", None)
    dump(os.path.join(inputs, "accept-base.json"), base, indent=None)
    planted = "s512-c2-zigzag-ring-h4x2-d32-causal-float64-cpu-local"
    changed = copy.deepcopy(base)
    changed["runs"] = [failed(r, "correctness: 1 of 65536 elements over tolerance (planted)")
                       if r["config"]["id"] == planted else r for r in base["runs"]]
    assert changed["runs"] != base["runs"]
    dump(os.path.join(inputs, "accept-changed.json"), changed, indent=None)


def make_inputs(inputs):
    """Remakes the input fixtures: base.json from a fresh BASE_SWEEP, then, derived from it by fixed
    factors, changed.json (a slowdown, a speed-up, a change too small, one too noisy, one on too
    few samples, a failure and a configuration left out) and a history of six nights."""
    with tempdir() as d:
        p = run(*BASE_SWEEP, "--out", "base", cwd=d)
        assert p.returncode == 0, p.stderr
        shutil.copy(os.path.join(d, "base", "results.json"), os.path.join(inputs, "base.json"))
    base = read_json(os.path.join(inputs, "base.json"))
    by_id = {r["config"]["id"]: r for r in base["runs"]}

    def rid(c, split, variant):
        return f"s256-c{c}-{split}-{variant}-h4x2-d16-causal-float64-cpu-local"

    plans = {
        rid(1, "contiguous", "ring"): lambda r: plant(r, 1.02),
        rid(1, "contiguous", "allgather"): lambda r: plant(r, 2.0),
        rid(1, "zigzag", "ring"): lambda r: plant(r, 0.5),
        rid(1, "zigzag", "allgather"): None,
        rid(2, "contiguous", "ring"): lambda r: plant(r, [1, 3, 1, 3, 1, 3]),
        rid(2, "contiguous", "allgather"): lambda r: plant(r, 1.5, keep=1),
        rid(2, "zigzag", "ring"): lambda r: failed(r, "correctness: 1 of 16384 elements over tolerance (planted)"),
        rid(4, "contiguous", "ring"): lambda r: plant(r, 1.3),
        rid(4, "zigzag", "allgather"): lambda r: plant(r, 0.7),
    }
    changed = copy.deepcopy(base)
    changed["runs"] = []
    for r in base["runs"]:
        how = plans.get(r["config"]["id"], lambda x: copy.deepcopy(x))
        if how is not None:
            changed["runs"].append(how(r))
    dump(os.path.join(inputs, "changed.json"), changed)
    make_accept_inputs(inputs)

    # Six nights of four configurations: one flat, one 30% slower from the 4th night, one 20% faster
    # from the 5th, one that failed on the 3rd night and is missing on the 6th.
    flat, slow, fast, gap = (rid(1, "contiguous", "ring"), rid(2, "zigzag", "ring"),
                             rid(4, "contiguous", "allgather"), rid(4, "zigzag", "ring"))
    nights = [
        {flat: 1.00, slow: 1.00, fast: 1.00, gap: 1.00},
        {flat: 1.01, slow: 0.99, fast: 1.01, gap: 1.01},
        {flat: 0.99, slow: 1.01, fast: 1.00, gap: "failed"},
        {flat: 1.00, slow: 1.30, fast: 0.99, gap: 1.00},
        {flat: 1.01, slow: 1.31, fast: 0.80, gap: 0.99},
        {flat: 0.99, slow: 1.29, fast: 0.81},
    ]
    history = os.path.join(inputs, "history")
    shutil.rmtree(history, ignore_errors=True)
    for n, night in enumerate(nights, 1):
        doc = copy.deepcopy(base)
        doc["tool"]["git_sha"] = f"c0ffee{n:06d}"
        doc["runs"] = [failed(by_id[i], "timeout: planted") if f == "failed" else plant(by_id[i], f)
                       for i, f in night.items()]
        dump(os.path.join(history, f"2026-11-{n:02d}.json"), doc, indent=None)


# (name, argv in the folder the inputs were copied to, exit code, files the command writes under
# out/<name>/, compared with the golden files too). Inputs: in/ holds tests/data/golden/inputs/,
# tests/data/results-0.3.0-h200.json, tests/data/kineto/ and profiles/acceptance-{cpu,h200}.json.
VERDICTS = [
    ("compare", ["compare", "in/base.json", "in/changed.json", "--json-out", "{out}/compare.json", "--html",
                 "{out}/compare.html"], 1, ["compare.json", "compare.html"]),
    ("compare-reversed", ["compare", "in/changed.json", "in/base.json", "--json"], 1, []),
    ("compare-tflops", ["compare", "in/base.json", "in/changed.json", "--metric", "tflops", "--json-out",
                        "{out}/compare.json"], 1, ["compare.json"]),
    ("compare-overlap", ["compare", "in/base.json", "in/changed.json", "--metric", "overlap", "--json-out",
                         "{out}/compare.json"], 1, ["compare.json"]),
    ("compare-exposed-comm", ["compare", "in/base.json", "in/changed.json", "--metric", "exposed_comm",
                              "--json-out", "{out}/compare.json"], 1, ["compare.json"]),
    ("compare-imbalance", ["compare", "in/base.json", "in/changed.json", "--metric", "imbalance", "--json-out",
                           "{out}/compare.json"], 1, ["compare.json"]),
    ("compare-lenient", ["compare", "in/base.json", "in/changed.json", "--threshold", "0.4", "--alpha", "0.01",
                         "--allow-underpowered"], 1, []),
    ("compare-h200", ["compare", "in/results-0.3.0-h200.json", "in/results-0.3.0-h200.json", "--json-out",
                      "{out}/compare.json"], 0, ["compare.json"]),
    ("accept-cpu", ["accept", "in/acceptance-cpu.json", "--results", "in/accept-base.json", "--junit",
                    "{out}/junit.xml"], 0, ["junit.xml"]),
    ("accept-cpu-json", ["accept", "in/acceptance-cpu.json", "--results", "in/accept-base.json", "--json"], 0, []),
    # base.json ran another sweep than the profile's: refused, naming the first difference (S).
    ("accept-cpu-other-sweep", ["accept", "in/acceptance-cpu.json", "--results", "in/base.json", "--junit",
                                "{out}/junit.xml"], 2, []),
    ("accept-cpu-changed", ["accept", "in/acceptance-cpu.json", "--results", "in/accept-changed.json", "--junit",
                            "{out}/junit.xml"], 1, ["junit.xml"]),
    ("accept-checks", ["accept", "in/checks.json", "--results", "in/base.json", "--junit", "{out}/junit.xml"], 1,
     ["junit.xml"]),
    ("accept-checks-json", ["accept", "in/checks.json", "--results", "in/base.json", "--json"], 1, []),
    # The stored H200 run predates acceptance-h200.json's sweep: its checks over the sweep it ran.
    ("accept-h200", ["accept", "in/acceptance-h200-as-run.json", "--results", "in/results-0.3.0-h200.json", "--junit",
                     "{out}/junit.xml"], 1, ["junit.xml"]),
    ("accept-h200-json", ["accept", "in/acceptance-h200-as-run.json", "--results", "in/results-0.3.0-h200.json",
                          "--json"],
     1, []),
    ("trend", ["trend", "in/history", "-o", "{out}/trend.html", "--json", "--baseline", "in/base.json", "--compare",
               "out/compare/compare.json"], 0, ["trend.html"]),
    ("trend-threshold", ["trend", "in/history", "-o", "{out}/trend.html", "--threshold", "25%", "--title",
                         "golden <trend>"], 0, ["trend.html"]),
    ("report-changed", ["report", "in/changed.json", "-o", "{out}/report.html", "--history", "in/history",
                        "--max-timelines", "2", "--timeline", "s256-c4-zigzag-ring-h4x2-d16-causal-float64-cpu-local"],
     0, ["report.html"]),
    ("report-h200", ["report", "in/results-0.3.0-h200.json", "-o", "{out}/report.html"], 0, ["report.html"]),
    ("analyze-kineto", ["analyze", "in/kineto"], 0, []),
    ("analyze-kineto-json", ["analyze", "--json", "--hta-drop-last-step", "in/kineto/sampled_rank-0.json.gz",
                             "in/kineto/sampled_rank-1.json.gz"], 0, []),
]


def copy_inputs(d):
    """The stored inputs, copied to d/in so that every path a command prints is relative."""
    dest = os.path.join(d, "in")
    shutil.copytree(os.path.join(GOLDEN, "inputs"), dest)
    shutil.copy(os.path.join(SOURCE_DIR, "tests", "data", "results-0.3.0-h200.json"), dest)
    shutil.copytree(os.path.join(SOURCE_DIR, "tests", "data", "kineto"), os.path.join(dest, "kineto"))
    for name in ("acceptance-cpu.json", "acceptance-h200.json"):
        shutil.copy(os.path.join(SOURCE_DIR, "profiles", name), dest)
    return dest


def mask_output(text, d):
    """What a command printed or wrote, with the one thing that varies from run to run written
    out: the temporary folder it ran in."""
    return text.replace(os.path.realpath(d), "<tmp>").replace(d, "<tmp>")


class GoldenVerdicts(unittest.TestCase):
    def test_commands_over_stored_inputs_give_the_golden_output(self):
        if UPDATE == "inputs":
            make_inputs(os.path.join(GOLDEN, "inputs"))
        with tempdir() as d:
            inputs = copy_inputs(d)
            before = folder_state(inputs)
            for name, argv, code, files in VERDICTS:
                with self.subTest(name):
                    out = os.path.join("out", name)
                    os.makedirs(os.path.join(d, out))
                    p = run(*[a.replace("{out}", out) for a in argv], cwd=d)
                    got = {"exit": f"{p.returncode}\n", "stdout": p.stdout, "stderr": p.stderr}
                    for f in files:
                        got[f] = read_text(os.path.join(d, out, f))
                    self.check(name, {k: mask_output(v, d) for k, v in got.items()})
                    self.assertEqual(p.returncode, code, p.stderr[-2000:])
            self.assertEqual(folder_state(inputs), before, "a command changed one of its inputs")

    def check(self, name, got):
        folder = os.path.join(GOLDEN, "verdicts", name)
        if UPDATE:
            shutil.rmtree(folder, ignore_errors=True)
            for k, v in got.items():
                write_text(os.path.join(folder, k), v)
            return
        self.assertEqual(sorted(os.listdir(folder)), sorted(got), f"{name}: the outputs compared")
        failures = []
        for k, v in got.items():
            want = read_text(os.path.join(folder, k))
            if v != want:
                kept = keep_artifact(f"{name}-{k}", v)
                # HTML lines run to kilobytes: each diff line is cut, the whole output is kept.
                diff = [ln.rstrip("\n")[:240] for ln in difflib.unified_diff(want.splitlines(True), v.splitlines(True),
                                                                             "golden", "now")]
                failures.append(f"{k} differs from {os.path.join(folder, k)} (now: {kept}):\n" + "\n".join(diff[:30]))
        if failures:
            self.fail(f"{name}: " + "\n".join(failures))


if __name__ == "__main__":
    unittest.main()
