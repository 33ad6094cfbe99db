"""A fleet of nodes built from one real cpu-backend sweep (docs/fleet.md, issue 31's planted fleet):
each node's results.json is that sweep's with only the host identity rewritten and the timings
scaled. Every node gets a speed of its own, drawn with `noise` (a standard deviation, as a fraction),
and each of its GPUs (ranks: on the cpu backend a rank stands in for a GPU, here given a planted
UUID in `placement` and host.gpus) another for its attention rate and its comm bandwidth. Planted on
request: one node slower by `slow_factor` in every timing, and one node with one rank whose comm
bandwidth is `weak_factor` of what it would be."""
import functools
import math
import os
import random
import uuid

from ringbench_test import read_json, run, scale_timing, tempdir, write_json

SWEEP = ["--seq", "256", "--cp", "1,2,4", "--split", "zigzag,contiguous", "--variant", "ring", "--heads", "4",
         "--kv-heads", "2", "--head-dim", "16", "--dtype", "float32", "--repeats", "3", "--warmup", "1"]
_KEEP = []  # the temporary folder of the base sweep lives as long as the process


@functools.lru_cache(maxsize=None)
def base_results():
    """One real sweep (c = 1, 2 and 4; two splits), run once per process."""
    tmp = tempdir()
    _KEEP.append(tmp)
    out = os.path.join(tmp.name, "base")
    p = run("run", *SWEEP, "--out", out)
    assert p.returncode == 0, p.stderr
    return read_json(os.path.join(out, "results.json"))


def gpu_uuid(host, rank):
    return "GPU-" + str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{host}.gpu{rank}"))


def node_results(base, host, node_factor, rank_factors, comm_factors, day="2026-12-01"):
    """`base` as node `host` measured it: every timing times node_factor, rank r's attention rate
    over rank_factors[r] and its comm bandwidth times comm_factors[r]."""
    doc = scale_timing(base, node_factor)
    doc["host"]["hostname"] = host
    ranks = max(r["config"]["cp"] for r in doc["runs"])
    doc["host"]["gpus"] = [{"name": "cpu stand-in", "uuid": gpu_uuid(host, g), "pci_bus_id": f"0000:{g:02x}:00.0",
                            "serial": f"{uuid.uuid5(uuid.NAMESPACE_DNS, f'{host}.serial{g}').int % 10**12:012d}", "board": "planted"}
                           for g in range(ranks)]
    doc["run_time"] = {"started_utc": f"{day}T02:00:00Z", "finished_utc": f"{day}T02:05:00Z"}
    for r in doc["runs"]:
        if r.get("placement"):
            for pl in r["placement"]:
                pl["host"] = host
                pl["device"] = gpu_uuid(host, pl["rank"])
        m = r.get("metrics")
        if not m:
            continue
        for k in ("attention_tflops_aggregate", "attention_tflops_slowest_rank"):
            if m.get(k):
                m[k] /= node_factor
        scales = []
        for pr in m.get("per_rank") or []:
            k = pr.get("rank", 0)
            if pr.get("attention_tflops"):
                pr["attention_tflops"] /= node_factor * rank_factors[k]
            if pr.get("attention_time_ms"):
                pr["attention_time_ms"] *= node_factor * rank_factors[k]
            if pr.get("comm_bandwidth_gbyte_per_s"):
                pr["comm_bandwidth_gbyte_per_s"] *= comm_factors[k] / node_factor
                scales.append(comm_factors[k])
        if m.get("comm_bandwidth_gbyte_per_s") and scales:
            m["comm_bandwidth_gbyte_per_s"] *= sum(scales) / len(scales) / node_factor
    return doc


def build_fleet(out_dir, nodes=32, seed=0, noise=0.01, slow_node=17, slow_factor=1.08, weak_node=9, weak_rank=1,
                weak_factor=0.5, plant=True):
    """Writes out_dir/<host>/results.json for every node; returns what was planted."""
    base = base_results()
    rng = random.Random(seed)
    ranks = max(r["config"]["cp"] for r in base["runs"])
    for i in range(nodes):
        host = f"node-{i:02d}"
        factor = math.exp(rng.gauss(0, noise))
        rank_f = [math.exp(rng.gauss(0, noise)) for _ in range(ranks)]
        comm_f = [math.exp(rng.gauss(0, noise)) for _ in range(ranks)]
        if plant and i == slow_node:
            factor *= slow_factor
        if plant and i == weak_node:
            comm_f[weak_rank] *= weak_factor
        os.makedirs(os.path.join(out_dir, host), exist_ok=True)
        write_json(os.path.join(out_dir, host, "results.json"), node_results(base, host, factor, rank_f, comm_f))
    return {"slow_node": f"node-{slow_node:02d}", "weak_gpu_node": f"node-{weak_node:02d}",
            "weak_gpu_uuid": gpu_uuid(f"node-{weak_node:02d}", weak_rank), "weak_rank": weak_rank}

