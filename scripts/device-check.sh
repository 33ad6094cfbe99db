#!/usr/bin/env bash
# The GPU check of issue 5 in one go, in under 8 minutes on one H200: build (preset default), the
# `gpu` tests, compute-sanitizer memcheck and racecheck over the gpu test binaries, the CUDA
# micro-benchmarks, a short sweep with the cuda backend, PyTorch SDPA at the same shapes, and the
# nccl transport with one rank where MPI is installed.
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
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  nvcc --version | tail -1
} >"$OUT/environment.txt" 2>&1

step configure 120 cmake --preset default || { cat "$summary"; exit 1; }
step build 300 cmake --build --preset default --parallel "$jobs" || { cat "$summary"; exit 1; }
bin=build/default

step gpu-tests 150 ctest --preset gpu --output-junit "$OUT/gpu-tests.xml"

# Sanitizers on the small-shape tests: memcheck (out-of-bounds, misaligned, uninitialised cp.async
# sources) and racecheck (shared-memory hazards between the cp.async stages and ldmatrix reads).
if command -v compute-sanitizer >/dev/null; then
  kfilter='KernelsCuda.AttentionMatchesTwinOnRandomSegments:KernelsCuda.MergeMatchesTwin:KernelsCuda.FillMatchesTwinBitForBit'
  step memcheck-kernels 90 compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$bin/tests/device/test_kernels_cuda" --gtest_filter="$kfilter"
  step racecheck-kernels 90 compute-sanitizer --tool racecheck --error-exitcode 1 \
    "$bin/tests/device/test_kernels_cuda" --gtest_filter='KernelsCuda.AttentionMatchesTwinOnLongSegments'
  step memcheck-executor 60 compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$bin/tests/device/test_executor_cuda" --gtest_filter='ExecutorCuda.GraphReplayEqualsEagerBitForBit'
else
  echo "compute-sanitizer      not found, skipped" | tee -a "$summary"
fi

if [ -x "$bin/bench/micro/ringbench_micro_cuda" ]; then
  step micro-cuda 150 "$bin/bench/micro/ringbench_micro_cuda" --benchmark_min_time=0.2 \
    --benchmark_out="$OUT/micro_cuda.json" --benchmark_out_format=json
fi

step peer-sdpa 90 python3 scripts/peer_sdpa.py --out "$OUT/peer_sdpa.json"

# The sweep of issue 5's "must show" (once the run command accepts --backend cuda).
step sweep 180 "$bin/bench/ringbench" run --backend cuda --dtype bfloat16 --seq 8192,32768 --cp 1,2,4,8 \
  --split contiguous,zigzag --heads 16 --kv-heads 2 --head-dim 128 --repeats 20 --warmup 3 --out "$OUT/results"

# The nccl transport with one rank (issue 6): a single H200 cannot host two NCCL ranks (NCCL refuses
# two ranks of one communicator on one device), so c = 1 is what one GPU can show. Needs MPI, which
# the GPU machine may lack: then the build has no nccl transport and the step says so.
if command -v mpirun >/dev/null; then
  step nccl-1rank 90 mpirun -np 1 --allow-run-as-root "$bin/bench/ringbench" run --backend cuda --dtype bfloat16 \
    --transport nccl --cp 1 --seq 8192 --heads 16 --kv-heads 2 --head-dim 128 --repeats 10 --out "$OUT/results-nccl"
else
  printf '%-22s %-22s\n' nccl-1rank "skipped (no mpirun)" | tee -a "$summary"
fi

echo "total $(( $(date +%s) - start ))s; logs in $OUT/logs" | tee -a "$summary"
exit $failed
