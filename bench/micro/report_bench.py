#!/usr/bin/env python3
"""Benchmark of the HTML report at scale (the report's goal: "a report over 500 configurations stays under 5 MB
and renders in under 2 s"). Not a test: it prints the figures for docs/performance.md ("Report") and
exits non-zero when a limit is broken.

  1. runs a small real sweep with the built ringbench (every split and variant, c up to 16);
  2. synthesises N configurations from its records by varying config fields (S scaled by powers of
     two with time and work scaled to match, heads, dtype), so every section has realistic content;
  3. times `ringbench report` on it and checks the file size;
  4. loads the page in headless Chromium (DevTools protocol, tests/reports/cdp.py) several times and
     takes the median time from navigation to the load event and to the first frame after it, and
     checks that no console error occurred.

Usage: bench/micro/report_bench.py --bin build/default/bench/ringbench [--configs 500] [--out DIR]"""
import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "reports"))
from cdp import Browser  # noqa: E402

SIZE_LIMIT = 5_000_000  # the issue says 5 MB
RENDER_LIMIT_S = 2.0


def real_sweep(binary, out):
    cmd = [binary, "run", "--seq", "256,512", "--cp", "1,2,4,8,16", "--split", "contiguous,zigzag,striped",
           "--variant", "ring,allgather", "--heads", "4", "--kv-heads", "2", "--head-dim", "16", "--dtype",
           "float32", "--repeats", "3", "--skip-invalid", "--out", out]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)


def scale_run(run, k, heads, dtype, serial):
    """A copy of `run` as if S were 2^k times larger (time × 4^k, work × 4^k) with other heads/dtype."""
    r = copy.deepcopy(run)
    c = r["config"]
    c["seq"] *= 2 ** k
    c["heads"], c["dtype"] = heads, dtype
    c["id"] = f"s{c['seq']}-c{c['cp']}-{c['split']}-{c['variant']}-h{heads}x{c['kv_heads']}-d{c['head_dim']}-" \
              f"{dtype}-syn{serial}"
    t = 4.0 ** k * heads / 4
    if r.get("timing"):
        for key, v in list(r["timing"].items()):
            if key.endswith("_ms") and isinstance(v, (int, float)):
                r["timing"][key] = v * t
        r["timing"]["samples_ms"] = [v * t for v in r["timing"]["samples_ms"]]
    if r.get("plan"):
        for pr in r["plan"]["per_rank"]:
            pr["work"] *= 4 ** k
    if r.get("metrics"):
        for pr in r["metrics"].get("per_rank", []):
            for key, v in list(pr.items()):
                if key.endswith("_ms") and isinstance(v, (int, float)):
                    pr[key] = v * t
    if r.get("timeline"):
        r["timeline"]["window_ms"] *= t
        for iv in r["timeline"]["intervals"]:
            iv["begin_ms"] *= t
            iv["end_ms"] *= t
    return r


def synthesise(doc, n):
    base = doc["runs"]
    out, serial = [], 0
    variants = [(k, h, d) for d in ("float32", "bfloat16") for h in (4, 8) for k in range(0, 8)]
    for k, heads, dtype in variants:
        for run in base:
            if len(out) == n:
                break
            out.append(scale_run(run, k, heads, dtype, serial))
            serial += 1
    syn = dict(doc, runs=out)
    syn["profile"] = dict(doc["profile"], name=f"synthetic-{n}",
                          description=f"{n} configurations synthesised from a real sweep by bench/micro/report_bench.py")
    return syn


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the built ringbench")
    ap.add_argument("--configs", type=int, default=500)
    ap.add_argument("--loads", type=int, default=5, help="page loads to take the median of")
    ap.add_argument("--out", default=None, help="keep the files here (default: a temporary directory)")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="ringbench-report-bench-")
    os.makedirs(out, exist_ok=True)

    real = real_sweep(args.bin, os.path.join(out, "real"))
    syn = synthesise(real, args.configs)
    results = os.path.join(out, "results.json")
    with open(results, "w") as f:
        json.dump(syn, f)
    html = os.path.join(out, "report.html")
    t0 = time.perf_counter()
    subprocess.run([args.bin, "report", results, "-o", html], check=True, capture_output=True)
    render_cli_s = time.perf_counter() - t0
    size = os.path.getsize(html)

    loads, frames = [], []
    with Browser() as b:
        for _ in range(args.loads + 1):  # the first load warms the browser up and is not counted
            b.errors.clear()
            t0 = time.perf_counter()
            b.load(html)
            t_load = time.perf_counter() - t0
            b.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            t_frame = time.perf_counter() - t0
            loads.append(t_load)
            frames.append(t_frame)
        nav = b.evaluate("(() => { const e = performance.getEntriesByType('navigation')[0]; "
                         "const p = performance.getEntriesByName('first-contentful-paint')[0]; "
                         "return {dcl: e.domContentLoadedEventEnd, load: e.loadEventEnd, fcp: p ? p.startTime : null,"
                         " elements: document.getElementsByTagName('*').length}; })()")
        errors = list(b.errors)
    loads, frames = loads[1:], frames[1:]
    ok_runs = sum(1 for r in syn["runs"] if r["status"] == "ok")
    intervals = sum(len(r["timeline"]["intervals"]) for r in syn["runs"] if r.get("timeline"))
    print(f"configurations        {len(syn['runs'])} ({ok_runs} ok), {intervals} timeline intervals in the results")
    print(f"results.json          {os.path.getsize(results) / 1e6:.1f} MB")
    print(f"ringbench report      {render_cli_s:.2f} s (read, render, write)")
    print(f"report.html           {size / 1e6:.2f} MB ({size} bytes; limit {SIZE_LIMIT / 1e6:.2f} MB), "
          f"{nav['elements']} elements")
    print(f"chromium load event   median {statistics.median(loads):.3f} s, max {max(loads):.3f} s "
          f"(navigate to load, {len(loads)} loads)")
    print(f"chromium first frame  median {statistics.median(frames):.3f} s, max {max(frames):.3f} s "
          f"(navigate to the frame after load; limit {RENDER_LIMIT_S} s)")
    fcp = f"{nav['fcp']:.0f} ms" if nav["fcp"] is not None else "n/a"
    print(f"page timing           DOMContentLoaded {nav['dcl']:.0f} ms, load {nav['load']:.0f} ms, "
          f"first contentful paint {fcp}")
    print(f"console errors        {len(errors)}{': ' + '; '.join(errors[:3]) if errors else ''}")
    print(f"files                 {out}")
    failed = size >= SIZE_LIMIT or statistics.median(frames) >= RENDER_LIMIT_S or errors
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
