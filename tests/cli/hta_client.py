"""Meta's Holistic Trace Analysis as a user runs it, on trace folders that `ringbench run --trace`
wrote: for each folder, TraceAnalysis(trace_dir=...), then the comm/compute overlap, the temporal
breakdown and the idle time breakdown of every rank, printed as one JSON document on stdout.

Runs in a process of its own, with the folder `scripts/pypi-deps.sh tools` installed first on its
PYTHONPATH (tests/pylib/ringbench_test.py: pytools_run), so HTA's numpy and pandas never share a
process with Debian's. Each folder is read twice: as HTA reads it by default (fractional µs rounded
to whole µs, start up and end down) and with HTA_DISABLE_NS_ROUNDING=1 (the nanoseconds the files
carry).
Usage: python3 hta_client.py FOLDER..."""
import importlib
import importlib.metadata
import json
import logging
import math
import os
import sys
import time


def number(x):
    x = float(x)
    return None if math.isnan(x) else x


def read(folder):
    from hta.trace_analysis import TraceAnalysis

    t0 = time.perf_counter()
    analyzer = TraceAnalysis(trace_dir=folder)
    ranks = sorted(int(r) for r in analyzer.t.traces)
    overlap = analyzer.get_comm_comp_overlap(visualize=False)
    temporal = analyzer.get_temporal_breakdown(visualize=False)
    idle, _ = analyzer.get_idle_time_breakdown(ranks=ranks, visualize=False)
    streams = {}
    for rank, df in analyzer.t.traces.items():  # the device streams HTA found in each rank's file
        streams[int(rank)] = sorted(int(s) for s in df["stream"].unique() if s >= 0)
    return {
        "ranks": ranks,
        "trace_files": {int(r): os.path.basename(p) for r, p in analyzer.t.trace_files.items()},
        "overlap_pct": {int(r): number(v) for r, v in zip(overlap["rank"], overlap["comp_comm_overlap_pctg"])},
        "temporal": [{k: (int(v) if k == "rank" else number(v)) for k, v in row.items()}
                     for row in temporal.to_dict("records")],
        "idle": [{"rank": int(row["rank"]), "stream": int(row["stream"]), "category": str(row["idle_category"]),
                  "idle_time": number(row["idle_time"]), "ratio": number(row["idle_time_ratio"])}
                 for row in idle.reset_index().to_dict("records")],
        "streams": streams,
        "seconds": time.perf_counter() - t0,
    }


def main(folders):
    logging.disable(logging.WARNING)  # HTA logs every file it parses, and its rounding, as warnings
    t0 = time.perf_counter()
    importlib.import_module("hta.trace_analysis")  # the import alone takes about a second

    out = {"hta_version": importlib.metadata.version("holistictraceanalysis"),
           "import_seconds": time.perf_counter() - t0, "folders": {}}
    for folder in folders:
        modes = {}
        for mode, flag in (("default", "0"), ("ns", "1")):
            os.environ["HTA_DISABLE_NS_ROUNDING"] = flag  # read by HTA at parse time
            modes[mode] = read(folder)
        out["folders"][folder] = modes
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
