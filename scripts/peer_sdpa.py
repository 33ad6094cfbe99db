#!/usr/bin/env python3
"""Times PyTorch's scaled_dot_product_attention (flash and cuDNN backends) on the GPU at the shapes
ringbench's attention kernel is measured at, so the two figures come from one run on one device.

FLOPs are counted as ringbench counts them (docs/design.md §3): 4 * D * Hq * unmasked pairs, which for a
causal sequence of S tokens is S * (S + 1) / 2 pairs; a backward 2.5 times that (FlashAttention's
convention, model/comm_compute.hpp kBackwardFlopsFactor, what ringbench's backward TFLOP/s count).
Timing: CUDA events around each call after a warm-up; min and median over the samples. --direction
bwd times the backward alone: one forward with Q, K, V requiring gradients, then
torch.autograd.grad(O, (Q, K, V), dO) on its graph per sample (retain_graph), the kernel cuDNN or
flash runs for SDPA's backward and nothing of the forward. GQA runs with enable_gqa=True where this
PyTorch and backend accept it, otherwise with K/V expanded to Hq heads before the graph (recorded as
"gqa": "expanded"; the backward then computes dK and dV at Hq heads, the expansion's own sum outside
the timing).
Writes JSON to --out (default $OUT/peer_sdpa.json or ./device-out/peer_sdpa.json). Exit status 4,
with "skipped" in the JSON and a last stderr line "peer_sdpa: skipped: <why>", where there is
nothing to time: PyTorch not importable, or no CUDA device visible to it. That is the machine's
lack, not a failure, and scripts/device-check.sh reports the step skipped (it decides on PyTorch
before it runs this, so a dry run shows it; status 4 is for a device PyTorch cannot see).
"""
import argparse
import json
import os
import statistics
import sys


def unmasked_pairs(s, causal):
    return s * (s + 1) // 2 if causal else s * s


def time_call(torch, fn, warmup, iters):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(iters):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b))  # ms
    return samples


BACKWARD_FLOPS_FACTOR = 2.5  # model/comm_compute.hpp kBackwardFlopsFactor


def timed_call(torch, F, direction, q, k, v, causal, extra):
    """What one sample times: the forward, or the backward of one forward's graph."""
    if direction == "fwd":
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, **extra)
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    o = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, **extra)
    do = torch.rand_like(o) * 2 - 1
    return lambda: torch.autograd.grad(o, (qg, kg, vg), do, retain_graph=True)


def run_one(torch, backend, s, d, hq, hkv, causal, warmup, iters, direction="fwd"):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F

    which = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    g = torch.Generator(device="cuda").manual_seed(1)
    q = torch.rand(1, hq, s, d, device="cuda", dtype=torch.bfloat16, generator=g) * 2 - 1
    k = torch.rand(1, hkv, s, d, device="cuda", dtype=torch.bfloat16, generator=g) * 2 - 1
    v = torch.rand(1, hkv, s, d, device="cuda", dtype=torch.bfloat16, generator=g) * 2 - 1
    rec = {"backend": backend, "direction": direction, "S": s, "D": d, "Hq": hq, "Hkv": hkv, "causal": causal}
    attempts = [("native", k, v, {"enable_gqa": True})] if hq != hkv else [("none", k, v, {})]
    if hq != hkv:
        rep = hq // hkv
        attempts.append(("expanded", k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1), {}))
    errors = []
    for mode, kk, vv, extra in attempts:
        try:
            with sdpa_kernel([which]):
                fn = timed_call(torch, F, direction, q, kk, vv, causal, extra)
                samples = time_call(torch, fn, warmup, iters)
        except Exception as e:  # backend or GQA mode not supported here: try the next, then report
            errors.append(f"{mode}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            continue
        med = statistics.median(samples)
        flops = 4.0 * d * hq * unmasked_pairs(s, causal) * (BACKWARD_FLOPS_FACTOR if direction == "bwd" else 1.0)
        rec.update(gqa=mode, samples=len(samples), min_ms=min(samples), median_ms=med,
                   tflops_median=flops / (med * 1e-3) / 1e12, tflops_best=flops / (min(samples) * 1e-3) / 1e12)
        return rec
    rec["error"] = "; ".join(errors)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_out = os.path.join(os.environ.get("OUT", "device-out"), "peer_sdpa.json")
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--seq", type=int, nargs="+", default=[4096, 8192, 16384, 32768])
    ap.add_argument("--head-dim", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--backends", nargs="+", default=["flash", "cudnn"], choices=["flash", "cudnn"])
    ap.add_argument("--direction", nargs="+", default=["fwd"], choices=["fwd", "bwd"],
                    help="the forward, the backward (2.5x the forward's FLOPs), or both")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()

    out = {"tool": "peer_sdpa", "flops": "4*D*Hq*unmasked_pairs (docs/design.md §3); bwd: 2.5 times that",
           "results": []}
    try:
        import torch
    except Exception as e:  # ImportError, or OSError where a library torch needs is missing
        return skipped(args.out, out, f"no PyTorch: cannot import torch: {type(e).__name__}: {e}")
    out["torch"] = torch.__version__
    if not torch.cuda.is_available():
        return skipped(args.out, out, f"no CUDA device visible to PyTorch {torch.__version__} "
                                      f"(built for CUDA {torch.version.cuda})")
    out["device"] = torch.cuda.get_device_name(0)
    out["cudnn"] = torch.backends.cudnn.version()
    for direction in args.direction:
        for backend in args.backends:
            for d in args.head_dim:
                for s in args.seq:
                    r = run_one(torch, backend, s, d, args.heads, args.kv_heads, True, args.warmup, args.iters,
                                direction)
                    out["results"].append(r)
                    msg = f"{r['tflops_median']:.1f} TFLOP/s ({r['gqa']})" if "tflops_median" in r else r["error"]
                    print(f"sdpa {direction} {backend:5s} S={s:6d} D={d:3d} Hq={args.heads} Hkv={args.kv_heads} "
                          f"causal: {msg}", flush=True)
                    torch.cuda.empty_cache()
    return write(args.out, out, 0)


SKIPPED = 4  # nothing to time here (see the docstring)


def skipped(path, obj, why):
    obj["skipped"] = why
    write(path, obj, SKIPPED)
    print(f"peer_sdpa: skipped: {why}", file=sys.stderr)
    return SKIPPED


def write(path, obj, rc):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
    print(f"peer_sdpa: wrote {path}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
