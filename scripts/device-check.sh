#!/usr/bin/env bash
# The GPU check, in one go and under 8 minutes on one H200 (the GPU-truth issue's "must show"):
#   1. the default preset configures against the node's own NCCL (2.28.3: no ncclCommRevoke) and builds;
#   2. every `gpu` test passes (kernels against their twins, the stamped copy against events, the
#      executor for every split and variant, contiguous ring included; the NVTX ranges under CUPTI);
#   3. compute-sanitizer memcheck and racecheck on small shapes;
#   4. the micro-benchmarks (attention, merge, the c = 8 pass per GPU, the driver's copy against the
#      stamped copy) and PyTorch SDPA beside them;
#   5. `accept profiles/gpu-check.json`: the S = 8k/32k x c = 1..8 x 3 splits x 2 variants sweep
#      passes correctness everywhere, contiguous imbalance within 10% of plan and zig-zag <= 1.05 at
#      S = 32768, c = 8, no per-GPU figure above the peak, NVLink N/A; then the comm clocks side by
#      side (execution from stamps, in flight from events, CUPTI);
#   6. the nccl transport with one rank under mpirun (one GPU cannot host two NCCL ranks);
#   7. `bash scripts/run.sh` on a short profile takes the GPU path and exits 0;
#   and after the gpu tests, the per-sample SM clock of a --max-noise 1 sweep that starts on an idle
#   GPU (clock-samples.tsv).
# Everything it produces goes under $OUT (default ./device-out): logs/, results/, *.json, summary.txt.
# Steps run under their own time limits and the script carries on past a failing step; it exits 1
# when any step failed. Host libraries come from .deps/ (scripts/device-deps.sh) when it is there.
# Usage: OUT=/path bash scripts/device-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/device-out}"
mkdir -p "$OUT/logs"
OUT="$(cd "$OUT" && pwd)"
start=$(date +%s)
summary="$OUT/summary.txt"
: >"$summary"
failed=0

if [ -d .deps/usr ]; then
  export CMAKE_PREFIX_PATH="$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export PATH="/usr/local/cuda/bin:$PATH"
jobs="$(nproc)"
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)

# step NAME SECONDS CMD...: runs CMD with a time limit, its output in logs/NAME.log, one line in
# summary.txt with status and seconds.
step() {
  local name="$1" limit="$2"
  shift 2
  local t0=$(date +%s) rc
  timeout --signal=INT --kill-after=10 "$limit" "$@" >"$OUT/logs/$name.log" 2>&1
  rc=$?
  local status=ok
  [ $rc -eq 0 ] || { status="FAILED (rc $rc)"; failed=1; }
  [ $rc -eq 124 ] && status="TIMED OUT after ${limit}s"
  printf '%-22s %-22s %4ss\n' "$name" "$status" "$(( $(date +%s) - t0 ))" | tee -a "$summary"
  return $rc
}

{
  echo "ringbench device check, $(date -u +%FT%TZ), git $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  nvcc --version | tail -1
  grep -h -E '#define NCCL_(MAJOR|MINOR|PATCH)' /usr/include/nccl.h /usr/local/cuda/include/nccl.h 2>/dev/null
} >"$OUT/environment.txt" 2>&1

step configure 120 cmake --preset default || { cat "$summary"; exit 1; }
grep -E 'ncclCommRevoke|ringbench [0-9]' "$OUT/logs/configure.log" | tee -a "$summary"
step build 300 cmake --build --preset default --parallel "$jobs" || { cat "$summary"; exit 1; }
bin=build/default

step gpu-tests 150 ctest --preset gpu --output-junit "$OUT/gpu-tests.xml"

# Measurement hygiene: after 20 s idle (the clock falls to idle, 345 MHz seen), a --max-noise 1
# sweep records every sample's SM clock; the first samples may show the climb back to boost. The
# table gives per configuration the clocks of its first samples, the range, what was dropped and why
# sampling stopped.
sleep 20
step clock-samples 90 "$bin/bench/ringbench" run --backend cuda --dtype bfloat16 --seq 8192,32768 --cp 1,4 \
  --split zigzag --heads 16 --kv-heads 2 --head-dim 128 --max-noise 1 --max-time 10 --no-interleave \
  --out "$OUT/results-clock"
if [ -f "$OUT/results-clock/results.json" ]; then
  python3 - "$OUT/results-clock/results.json" >"$OUT/clock-samples.tsv" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print("config\tstatus\tnominal_mhz\tfirst_mhz\tmin_mhz\tmax_mhz\tdropped\ttaken\tcount\tnoise_pct\tstopped_by")
for r in doc["runs"]:
    c, t = r.get("sm_clock") or {}, r.get("timing") or {}
    mhz = [x for x in c.get("samples_mhz", []) if x is not None]
    print("\t".join(str(x) for x in [r["config"]["id"], r["status"], c.get("nominal_mhz"),
                                     ",".join(f"{x:.0f}" for x in c.get("samples_mhz", [])[:5] if x is not None),
                                     min(mhz, default=""), max(mhz, default=""), c.get("dropped_count"),
                                     c.get("taken"), t.get("count"), t.get("noise_pct"), t.get("stopped_by")]))
PY
fi

# Sanitizers on the small-shape tests: memcheck (out-of-bounds, misaligned, uninitialised cp.async
# sources, the stamped copy's tails) and racecheck (shared-memory hazards between the cp.async
# stages and ldmatrix reads).
if command -v compute-sanitizer >/dev/null; then
  kfilter='KernelsCuda.AttentionMatchesTwinOnRandomSegments:KernelsCuda.MergeMatchesTwin:KernelsCuda.FillMatchesTwinBitForBit:KernelsCuda.StampedCopyMatchesTwinAndStampsItsWindow'
  step memcheck-kernels 90 compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$bin/tests/device/test_kernels_cuda" --gtest_filter="$kfilter"
  step racecheck-kernels 90 compute-sanitizer --tool racecheck --error-exitcode 1 \
    "$bin/tests/device/test_kernels_cuda" --gtest_filter='KernelsCuda.AttentionMatchesTwinOnLongSegments'
  step memcheck-executor 60 compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$bin/tests/device/test_executor_cuda" \
    --gtest_filter='ExecutorCuda.GraphReplayEqualsEagerBitForBit:ExecutorCuda.TransfersExecuteInsideTheirInFlightSpans'
else
  echo "compute-sanitizer      not found, skipped" | tee -a "$summary"
fi

if [ -x "$bin/bench/micro/ringbench_micro_cuda" ]; then
  step micro-cuda 120 "$bin/bench/micro/ringbench_micro_cuda" --benchmark_min_time=0.1 \
    --benchmark_filter='CudaAttention/D:(64|128)/S:16384/group:8/causal_diag:1|CudaMerge|CudaPassC8|CudaCopyD2D|CudaStampedCopy' \
    --benchmark_out="$OUT/micro_cuda.json" --benchmark_out_format=json
fi

step peer-sdpa 90 python3 scripts/peer_sdpa.py --out "$OUT/peer_sdpa.json"

# The sweep and its checks in one: accept runs gpu-check's sweep, then holds it to the checks.
step accept-gpu-check 240 "$bin/bench/ringbench" accept profiles/gpu-check.json --out "$OUT/results" \
  --junit "$OUT/accept.xml"
cp "$OUT/logs/accept-gpu-check.log" "$OUT/accept.txt" 2>/dev/null
# The comm clocks side by side, per configuration with comm: execution (the copies' stamps), in flight
# (events), CUPTI's execution, and the headline per GPU beside the aggregate.
if [ -f "$OUT/results/results.json" ]; then
  python3 - "$OUT/results/results.json" >"$OUT/comm-clocks.tsv" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print("config\tstatus\tper_gpu_tflops\taggregate_tflops\tslowest_rank_tflops\timbalance\tcomm_basis\tcomm_ms\t"
      "in_flight_ms\tcupti_comm_ms\toverlap\tcupti_overlap\texposed_ms\tcupti_exposed_ms\tcupti_overhead_pct")
for r in doc["runs"]:
    m = r.get("metrics") or {}
    c = (r.get("cupti") or {})
    cm = c.get("metrics") or {}
    f = lambda d, k: "" if d.get(k) is None else f"{d[k]:.4g}" if isinstance(d[k], float) else str(d[k])
    print("\t".join([r["config"]["id"], r["status"], f(m, "attention_tflops"), f(m, "attention_tflops_aggregate"),
                     f(m, "attention_tflops_slowest_rank"), f(m, "imbalance"), f(m, "comm_basis"), f(m, "comm_time_ms"),
                     f(m, "comm_in_flight_ms"), f(cm, "comm_time_ms"), f(m, "overlap_fraction"),
                     f(cm, "overlap_fraction"), f(m, "exposed_comm_ms"), f(cm, "exposed_comm_ms"),
                     f(c, "overhead_pct")]))
PY
fi

# The nccl transport with one rank: a single H200 cannot host two NCCL ranks (NCCL refuses two ranks
# of one communicator on one device), so c = 1 is what one GPU can show.
if command -v mpirun >/dev/null && "$bin/bench/ringbench" --version | grep -q ' nccl'; then
  step nccl-1rank 90 mpirun -np 1 "${root[@]}" "$bin/bench/ringbench" run --backend cuda --dtype bfloat16 \
    --transport nccl --cp 1 --seq 8192,32768 --variant ring,allgather --heads 16 --kv-heads 2 --head-dim 128 \
    --repeats 10 --out "$OUT/results-nccl"
else
  printf '%-22s %-22s\n' nccl-1rank "skipped (no mpirun or no nccl transport)" | tee -a "$summary"
fi

# The README's main command on the GPU node: it must find the GPU and take the GPU path. A small
# profile of its own keeps this step to its build and a few configurations.
cat >"$OUT/run-sh-profile.json" <<'JSON'
{"name": "run-sh-check", "description": "device-check: scripts/run.sh's GPU path",
 "sweep": {"seq": [8192], "cp": [1, 8], "split": ["contiguous", "zigzag"], "variant": ["ring"], "heads": 16,
           "kv_heads": 2, "head_dim": 128, "dtype": "bfloat16", "backend": "cuda", "transport": "nccl",
           "repeats": 5, "warmup": 1}}
JSON
step run-sh 150 bash scripts/run.sh --profile "$OUT/run-sh-profile.json" "$OUT/results-run-sh"
grep -E '^ringbench: (one GPU|[0-9]+ GPUs|no GPU)' "$OUT/logs/run-sh.log" | tee -a "$summary"

echo "total $(( $(date +%s) - start ))s; logs in $OUT/logs" | tee -a "$summary"
exit $failed
