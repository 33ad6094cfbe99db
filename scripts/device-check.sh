#!/usr/bin/env bash
# The GPU check, in one go and under 8 minutes on one H200 (the GPU-truth issue's "must show"),
# its minutes spent on the point of the contact first (issue 40):
#   1. the default preset configures against the node's own NCCL (2.28.3: no ncclCommRevoke) and
#      MPI, and builds; where the node has Open MPI's runtime but no headers, against the headers
#      .deps/ carries (scripts/device-deps.sh) and the node's own libmpi.so.40, so the nccl
#      transport is built there too;
#   2. the per-sample SM clock of a --max-noise 1 sweep that starts on the GPU left idle by the
#      build (clock-samples.tsv);
#   3. every `gpu` test passes, one at a time (kernels against their twins, the stamped copy against
#      events, the executor for every split and variant, contiguous ring included, on both kernels;
#      the NVTX ranges under CUPTI, libcupti named NVTX's tool as the binary names it);
#   4. `accept profiles/gpu-check-cudnn.json --kernel cudnn`, right after the gpu tests: gpu-check's
#      sweep at S = 32768 and its checks with every step on cuDNN's flash attention, where cuDNN's
#      library opens on the node (`ringbench --version`'s `cudnn library:` line, not the build's
#      flag); each graph shape's plan is built once (results: kernel_choice.cudnn_plan_builds);
#   5. `accept profiles/gpu-check.json`: the S = 8k/32k x c = 1..8 x 3 splits x 2 variants sweep
#      passes correctness everywhere, contiguous imbalance within 10% of plan and zig-zag <= 1.05 at
#      S = 32768, c = 8, no per-GPU figure above the peak, NVLink N/A; then the comm clocks side by
#      side (execution from stamps, in flight from events, CUPTI);
#   6. the nccl transport with one rank under mpirun (one GPU cannot host two NCCL ranks);
#   7. `bash scripts/run.sh` on a short profile, with the binary built in 1, takes the GPU path and
#      exits 0;
#   8. compute-sanitizer memcheck, initcheck (uninitialised cp.async sources: memcheck does not see
#      those) and racecheck on small shapes, once a trivial kernel of its own has passed under
#      memcheck; where even that fails (gVisor answers "Device not supported") they are skipped;
#   9. the micro-benchmarks (attention on both kernels, merge, the c = 8 pass per GPU, the driver's
#      copy against the stamped copy) and PyTorch SDPA beside them.
# Everything it produces goes under $OUT (default ./device-out): logs/, results/, *.json,
# environment.txt (GPU, CUDA, NCCL, where MPI came from, and which cuDNN: headers and library with
# their versions, PyTorch's copy among them), summary.txt (a line per step: ok, FAILED, TIMED OUT,
# cut by the budget, or skipped with its reason).
# Each step runs under its own limit, cut to what is left of a budget of 460 s
# (RINGBENCH_CHECK_BUDGET_S; docs/performance.md recommends 540 for the first run after a long gap),
# so the whole check ends inside 8 minutes; the steps the contact is for come first, and --dry-run
# shows each step's expected time (the issue's figures on 16 cores) and where the budget ends. It
# carries on past a failing step and exits 1 when any step failed or overran its own limit (TIMED
# OUT). A step the budget's end stops, or leaves under 15 s for (RINGBENCH_CHECK_MIN_STEP_S), is
# "cut": like a step skipped for what the machine lacks (no compute-sanitizer, no mpirun), it does
# not fail the check, which fails only for the code.
# Host libraries come from .deps/ (scripts/device-deps.sh) when it is there.
# Usage: OUT=/path bash scripts/device-check.sh [--dry-run]
#   --dry-run      print the plan (the MPI flags, the sanitizer decision, every step's command, limit
#                  and expected time, where the budget ends) and run nothing; works without a GPU
#   --mpi-args     print only the MPI flags configure would get, one a line (device-deps.sh --check)
#   RINGBENCH_MPI_HEADERS=carried   use .deps/'s Open MPI headers even where the node has its own
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

mode=run
case "${1:-}" in
  "") ;;
  --dry-run) mode=dry ;;
  --mpi-args) mode=mpi-args ;;
  -h | --help) sed -n '2,46p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: OUT=/path bash scripts/device-check.sh [--dry-run | --mpi-args]" >&2; exit 2 ;;
esac

if [ -d .deps/usr ]; then
  export CMAKE_PREFIX_PATH="$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export PATH="/usr/local/cuda/bin:$PATH"

# The node's own MPI headers where it has them (its wrapper, or the compiler's default path, finds
# mpi.h: FindMPI then needs no help). Without them, the headers .deps/ carries, linked to the node's
# own libmpi.so.40, and only where the node's mpirun is the Open MPI major.minor those headers
# describe: one ABI across a 4.1.x series, not across series. Sets mpi_args, mpi_origin,
# mpirun_version and libmpi.
mpi_plan() {
  mpi_args=()
  mpirun_version="$(mpirun --version 2>/dev/null | head -1)"
  libmpi="$(ldconfig -p 2>/dev/null | awk '$1 == "libmpi.so.40" { print $NF; exit }')"
  local f w h
  if [ -z "$libmpi" ]; then
    for f in /usr/lib/x86_64-linux-gnu/libmpi.so.40 /usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi.so.40 \
      /usr/lib64/openmpi/lib/libmpi.so.40 /usr/lib64/libmpi.so.40; do
      [ -e "$f" ] && { libmpi="$f"; break; }
    done
  fi
  if [ "${RINGBENCH_MPI_HEADERS:-auto}" != carried ]; then
    for w in mpicxx mpic++ mpicc c++ cc; do
      command -v "$w" >/dev/null 2>&1 || continue
      h="$(printf '#include <mpi.h>\n' | "$w" -E -x c - 2>/dev/null | grep -m1 -oE '"[^"]*/mpi\.h"' | tr -d '"')"
      if [ -n "$h" ]; then
        mpi_origin="the node's own: $h (found through $w)"
        return
      fi
    done
  fi
  local carried=.deps/openmpi/include
  if [ ! -f "$carried/mpi.h" ]; then
    mpi_origin="none: the node has no mpi.h and .deps/ carries none (scripts/device-deps.sh)"
    return
  fi
  local hv rv
  hv="$(sed -n 's/^#define OMPI_\(MAJOR\|MINOR\|RELEASE\)_VERSION //p' "$carried/mpi.h" | paste -sd.)"
  rv="$(printf '%s\n' "$mpirun_version" | sed -n 's/.*Open MPI[^0-9]*\([0-9][0-9.]*\).*/\1/p')"
  if [ -z "$libmpi" ]; then
    mpi_origin="none: .deps/ carries Open MPI $hv's headers, but the node has no libmpi.so.40 to link"
  elif [ -z "$rv" ] || [ "${rv%.*}" != "${hv%.*}" ]; then
    mpi_origin="none: .deps/ carries Open MPI $hv's headers, but the node's mpirun is '${mpirun_version:-missing}'"
  else
    # No wrapper (the node's, if any, points at headers it lacks), no MPI-2 C++ bindings (their
    # headers and libmpi_cxx are not carried), and the node's libmpi by its full path.
    mpi_args=(-DMPI_SKIP_COMPILER_WRAPPER=ON -DMPI_ASSUME_NO_BUILTIN_MPI=ON -DMPI_CXX_SKIP_MPICXX=ON
      "-DMPI_CXX_HEADER_DIR=$PWD/$carried" -DMPI_CXX_LIB_NAMES=mpi "-DMPI_mpi_LIBRARY=$libmpi")
    mpi_origin="carried: Open MPI $hv's headers from .deps/openmpi/include, linked to the node's $libmpi (Open MPI $rv)"
  fi
}
mpi_plan
if [ "$mode" = mpi-args ]; then
  echo "device-check: MPI headers: $mpi_origin" >&2
  [ ${#mpi_args[@]} -gt 0 ] && printf '%s\n' "${mpi_args[@]}"
  exit 0
fi

# The Python side of cudnn_plan: tab-separated lines "headers PATH", "lib PATH VERSION ORIGIN",
# "info TEXT", for the wheel's headers, each candidate library and PyTorch.
cudnn_probe() {
  timeout 30 python3 - "$1" 2>/dev/null <<'PY'
import ctypes, glob, importlib.metadata as md, os, sys
def version(path):
    try:
        v = ctypes.CDLL(path).cudnnGetVersion()
        return f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
    except (OSError, AttributeError) as e:
        return f"unloadable: {e}"
libs = [(sys.argv[1], "the loader's, ldconfig")] if sys.argv[1] else []
try:
    import nvidia.cudnn as m
    for d in m.__path__:
        for h in glob.glob(os.path.join(d, "include", "cudnn_version.h")):
            print("headers", h, sep="\t")
        libs += [(f, "PyTorch's wheel nvidia/cudnn") for f in glob.glob(os.path.join(d, "lib", "libcudnn.so.9"))]
except Exception:
    pass
for dist in ("nvidia-cudnn-cu12", "nvidia-cudnn-cu13"):
    try:
        print("info", f"Python package {dist} {md.version(dist)}", sep="\t")
    except md.PackageNotFoundError:
        pass
try:
    import torch
    print("info", f"PyTorch {torch.__version__} (CUDA {torch.version.cuda}): torch.backends.cudnn.version() = "
          f"{torch.backends.cudnn.version()}", sep="\t")
    libs += [(f, "torch/lib") for f in glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib", "libcudnn.so.9"))]
except Exception as e:
    print("info", f"PyTorch: not importable ({type(e).__name__})", sep="\t")
seen = set()
for f, origin in libs:
    r = os.path.realpath(f)
    if r not in seen:
        seen.add(r)
        print("lib", f, version(f), origin, sep="\t")
PY
}
# Which cuDNN the node has, for environment.txt and configure. Headers: the node's own (toolkit,
# system, a PyTorch wheel's nvidia/cudnn/include) before those .deps/ carries (scripts/device-deps.sh).
# Library: the loader's libcudnn.so.9 (ldconfig), else a PyTorch wheel's copy (nvidia/cudnn/lib, or
# torch/lib), each with the version it reports (cudnnGetVersion through ctypes: no GPU needed). The
# build opens the library at run time and asks its version, so headers newer than the library are
# safe (cmake/RingbenchDependencies.cmake); configure is given the library found here, which it
# would not find in torch/lib itself. Sets cudnn_headers, cudnn_library, cudnn_info, cudnn_args.
cudnn_plan() {
  cudnn_args=()
  cudnn_headers=""
  cudnn_library=""
  cudnn_info=()
  local d h ld kind a b c
  for d in "${CUDNN_PATH:-}" "${CUDNN_HOME:-}" /usr/local/cuda /usr; do
    [ -n "$d" ] && [ -f "$d/include/cudnn_version.h" ] && { h="$d/include/cudnn_version.h"; break; }
  done
  ld="$(ldconfig -p 2>/dev/null | awk '$1 == "libcudnn.so.9" { print $NF; exit }')"
  while IFS=$'\t' read -r kind a b c; do
    case "$kind" in
      headers) [ -z "${h:-}" ] && h="$a" ;;
      lib) [ -z "$cudnn_library" ] && [ "${b#unloadable}" = "$b" ] && cudnn_library="$a ($b, $c)"
        cudnn_info+=("cuDNN library candidate: $a ($b, $c)") ;;
      *) cudnn_info+=("$a") ;;
    esac
  done < <(cudnn_probe "$ld")
  if [ -n "${h:-}" ]; then
    cudnn_headers="$h ($(sed -n 's/^#define CUDNN_\(MAJOR\|MINOR\|PATCHLEVEL\) *//p' "$h" | paste -sd.))"
  elif [ -f .deps/cudnn/include/cudnn_version.h ]; then
    h=.deps/cudnn/include/cudnn_version.h
    cudnn_headers="none of the node's own; carried: $h ($(sed -n 's/^#define CUDNN_\(MAJOR\|MINOR\|PATCHLEVEL\) *//p' \
      "$h" | paste -sd.), scripts/device-deps.sh)"
  fi
  [ -n "$cudnn_library" ] && cudnn_args=("-DRINGBENCH_CUDNN_LIBRARY=${cudnn_library%% (*}")
  local fe=.deps/cudnn-frontend/include/cudnn_frontend_version.h
  if [ -f "$fe" ]; then
    cudnn_info+=("cuDNN frontend headers: $fe ($(sed -n 's/^#define CUDNN_FRONTEND_\(MAJOR\|MINOR\|PATCH\)_VERSION *//p' \
      "$fe" | paste -sd.))")
  else
    cudnn_info+=("cuDNN frontend headers: none (.deps/cudnn-frontend: scripts/pypi-deps.sh cudnn-frontend, or device-deps.sh)")
  fi
}
cudnn_plan
cudnn_text() {
  local none_h="none found (the toolkit, the system, a PyTorch wheel, .deps/cudnn)"
  local none_l="none found (libcudnn.so.9 in ldconfig, a PyTorch wheel, torch/lib)"
  echo "cuDNN headers: ${cudnn_headers:-$none_h}"
  echo "cuDNN library: ${cudnn_library:-$none_l}"
  printf '%s\n' "${cudnn_info[@]}"
  if [ -z "$cudnn_headers" ] || [ -z "$cudnn_library" ]; then
    echo "cuDNN: none usable here: the build has no cudnn kernel (configure's summary line says why)"
  fi
  [ ${#cudnn_args[@]} -gt 0 ] && echo "cuDNN configure flags: ${cudnn_args[*]}"
  return 0
}

OUT="${OUT:-$PWD/device-out}"
budget="${RINGBENCH_CHECK_BUDGET_S:-460}"
min_step="${RINGBENCH_CHECK_MIN_STEP_S:-15}"
start=$(date +%s)
deadline=$((start + budget))
failed=0
cuts=()
if [ "$mode" = run ]; then
  mkdir -p "$OUT/logs"
  OUT="$(cd "$OUT" && pwd)"
  summary="$OUT/summary.txt"
  : >"$summary"
else
  summary=/dev/null
  echo "device-check --dry-run: nothing runs; OUT would be $OUT; budget ${budget}s in all"
  echo "MPI headers: $mpi_origin"
  echo "  mpirun: ${mpirun_version:-not found}; libmpi.so.40: ${libmpi:-not found}"
  cudnn_text
fi
jobs="$(nproc)"
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)

note() { printf '%-22s %s\n' "$1" "$2" | tee -a "$summary"; }
skip() { note "$1" "skipped ($2)"; }
# A step the budget stopped or never let start: reported as cut, never as a failure.
cut() {
  cuts+=("$1")
  note "$1" "cut ($2)"
}
# Whether the budget leaves a step under $min_step s (in a run; a dry run plans every step), and the
# cut of a step that therefore does not start.
spent() { [ "$mode" = run ] && [ $((deadline - $(date +%s))) -lt "$min_step" ]; }
cut_spent() { cut "$1" "the ${budget}s budget left $((deadline - $(date +%s)))s, under ${min_step}s"; }

# What each step takes at the first contact, in seconds, "low-high": issue 40's figures on 16 cores
# (configure 20, build 90-120, clock samples 45, gpu tests 120-150, accept 120-150; accept-cudnn's
# 180 s held over 100 s of plan builds, which the process's graph cache leaves at about 10, on half
# the configurations); "-" where no run has timed it yet. --dry-run adds them up to show where the
# budget ends.
declare -A expect=([configure]=20 [build]=90-120 [clock-samples]=45 [gpu-tests]=120-150 [accept-cudnn]=60-90
  [accept-gpu-check]=120-150)
planned_low=0
planned_high=0
budget_end=""  # the first step the budget does not cover at the upper figures (dry run)

# step NAME SECONDS CMD...: runs CMD with a time limit (SECONDS, or what is left of the budget if
# less), its output in logs/NAME.log, one line in summary.txt with status and seconds. A step the
# budget leaves under $min_step s for does not start, and one the budget's end stops is cut: both
# say so and neither fails the check. Returns 0 (ok), 1 (failed or overran its own limit), 3 (cut).
step() {
  local name="$1" limit="$2"
  shift 2
  if [ "$mode" = dry ]; then
    local e="${expect[$name]:--}"
    if [ "$e" != - ]; then
      planned_low=$((planned_low + ${e%-*}))
      planned_high=$((planned_high + ${e#*-}))
      e="${e}s, by ${planned_high}s"
      if [ "$planned_high" -gt "$budget" ] && [ -z "$budget_end" ]; then
        budget_end=$name
        echo "budget-end             the ${budget}s budget ends here at the upper figures; what follows runs if" \
          "the steps above were faster, else it is cut"
      fi
    fi
    printf '%-22s %4ss  expect %-18s %s\n' "$name" "$limit" "$e" "$(printf '%q ' "$@")"
    return 0
  fi
  local t0 rc left status=ok cut_by=""
  t0=$(date +%s)
  left=$((deadline - t0))
  if spent; then
    cut_spent "$name"
    return 3
  fi
  [ "$limit" -gt "$left" ] && { limit=$left; cut_by=yes; }
  timeout --signal=INT --kill-after=10 "$limit" "$@" >"$OUT/logs/$name.log" 2>&1
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    if [ -n "$cut_by" ]; then
      cut "$name" "the ${budget}s budget ended it after ${limit}s: logs/$name.log"
      return 3
    fi
    status="TIMED OUT after ${limit}s"
    failed=1
  elif [ $rc -ne 0 ]; then
    status="FAILED (rc $rc)"
    failed=1
  fi
  printf '%-22s %-22s %4ss\n' "$name" "$status" "$(($(date +%s) - t0))" | tee -a "$summary"
  [ $rc -eq 0 ] && return 0
  return 1
}

if [ "$mode" = run ]; then
  {
    echo "ringbench device check, $(date -u +%FT%TZ), git $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.max.mem --format=csv 2>&1
    nvcc --version | tail -1
    grep -h -E '#define NCCL_(MAJOR|MINOR|PATCH)' /usr/include/nccl.h /usr/local/cuda/include/nccl.h 2>/dev/null
    echo "mpirun: ${mpirun_version:-not found} ($(command -v mpirun || echo 'not on PATH'))"
    echo "libmpi.so.40: ${libmpi:-not found}"
    echo "MPI headers: $mpi_origin"
    [ ${#mpi_args[@]} -gt 0 ] && echo "MPI configure flags: ${mpi_args[*]}"
    echo "compute-sanitizer: $(command -v compute-sanitizer || echo 'not found') $(compute-sanitizer --version 2>/dev/null | tail -1)"
    cudnn_text
  } >"$OUT/environment.txt" 2>&1
fi

bin=build/default
ringbench="$PWD/$bin/bench/ringbench"

# A configure or build that failed ends the check; one the budget cut leaves every later step cut.
step configure 90 cmake --preset default "${mpi_args[@]}" "${cudnn_args[@]}" || [ $? -eq 3 ] || { cat "$summary"; exit 1; }
[ "$mode" = run ] && grep -E 'ncclCommRevoke|ringbench [0-9]' "$OUT/logs/configure.log" 2>/dev/null | tee -a "$summary"
step build 240 cmake --build --preset default --parallel "$jobs" || [ $? -eq 3 ] || { cat "$summary"; exit 1; }

# Measurement hygiene: the GPU has been idle through configure and build (20 s idle brings the
# clock down to idle, 345 MHz seen); a --max-noise 1 sweep records every sample's SM clock, and the
# first samples may show the climb back to boost. The table gives per configuration the clocks of
# its first samples, the range, what was dropped and why sampling stopped.
if [ "$mode" = run ]; then
  idle=$((20 - ($(date +%s) - start)))
  # Not when the budget would cut the sweep anyway.
  [ "$idle" -gt 0 ] && [ $((deadline - $(date +%s) - idle)) -ge "$min_step" ] && sleep "$idle"
else
  echo "idle-wait                    sleep until 20 s after the start (configure and build usually cover it)"
fi
step clock-samples 60 "$ringbench" run --backend cuda --dtype bfloat16 --seq 8192,32768 --cp 1,4 \
  --split zigzag --heads 16 --kv-heads 2 --head-dim 128 --max-noise 1 --max-time 10 --no-interleave \
  --out "$OUT/results-clock"
if [ "$mode" = run ] && [ -f "$OUT/results-clock/results.json" ]; then
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

# One test at a time: the gpu label's tests are RUN_SERIAL (tests/CMakeLists.txt).
step gpu-tests 150 ctest --preset gpu --output-junit "$OUT/gpu-tests.xml"

# The cudnn kernel (--kernel cudnn), the point of the first contact, right after the gpu tests:
# gpu-check's sweep at S = 32768 and its checks with each step on cuDNN's SDPA pieces, where cuDNN's
# library opens on this node (`ringbench --version`'s `cudnn library:` line says so, or why not):
# a build with cuDNN on a node without it skips, as a build without cuDNN does.
cudnn_step=(accept-cudnn 150 "$ringbench" accept profiles/gpu-check-cudnn.json --kernel cudnn --out "$OUT/results-cudnn"
  --junit "$OUT/accept-cudnn.xml")
if spent; then
  cut_spent accept-cudnn
elif [ "$mode" = dry ]; then
  echo "accept-cudnn: runs where \`ringbench --version\` says 'cudnn library: <version> (<path>)', i.e. cuDNN opens here"
  step "${cudnn_step[@]}"
else
  cudnn_line="$("$ringbench" --version 2>/dev/null | sed -n 's/^cudnn library: //p')"
  if [ -z "$cudnn_line" ]; then
    skip accept-cudnn "the build has no cuDNN kernel (see the configure line's cuDNN=OFF reason)"
  elif [ "${cudnn_line#unavailable}" != "$cudnn_line" ]; then
    skip accept-cudnn "cuDNN's library does not open here: ${cudnn_line#unavailable: }"
  else
    step "${cudnn_step[@]}"
  fi
fi
[ -f "$OUT/logs/accept-cudnn.log" ] && cp "$OUT/logs/accept-cudnn.log" "$OUT/accept-cudnn.txt"

# The sweep and its checks in one: accept runs gpu-check's sweep, then holds it to the checks.
step accept-gpu-check 240 "$ringbench" accept profiles/gpu-check.json --out "$OUT/results" \
  --junit "$OUT/accept.xml"
[ -f "$OUT/logs/accept-gpu-check.log" ] && cp "$OUT/logs/accept-gpu-check.log" "$OUT/accept.txt"
# The comm clocks side by side, per configuration with comm: execution (the copies' stamps), in flight
# (events), CUPTI's execution, and the headline per GPU beside the aggregate.
if [ "$mode" = run ] && [ -f "$OUT/results/results.json" ]; then
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
# of one communicator on one device), so c = 1 is what one GPU can show. What the machine lacks
# (mpirun, NCCL, MPI headers) skips it; MPI and NCCL found but no nccl transport built is the code's.
# shellcheck disable=SC2054  # the commas are --seq's and --variant's lists
nccl_step=(nccl-1rank 60 mpirun -np 1 "${root[@]}" "$ringbench" run --backend cuda --dtype bfloat16
  --transport nccl --cp 1 --seq 8192,32768 --variant ring,allgather --heads 16 --kv-heads 2 --head-dim 128
  --repeats 10 --out "$OUT/results-nccl")
if ! command -v mpirun >/dev/null; then
  skip nccl-1rank "no mpirun"
elif spent; then
  cut_spent nccl-1rank
elif [ "$mode" = dry ]; then
  echo "nccl-1rank: runs if the build has the nccl transport (needs NCCL at configure time; MPI: $mpi_origin)"
  step "${nccl_step[@]}"
elif "$ringbench" --version | grep -q ' nccl'; then
  step "${nccl_step[@]}"
elif ! grep -q 'NCCL=ON' "$OUT/logs/configure.log"; then
  skip nccl-1rank "configure found no NCCL: logs/configure.log"
elif ! grep -q 'MPI=ON' "$OUT/logs/configure.log"; then
  case "$mpi_origin" in
    none:*) skip nccl-1rank "no MPI to build it against: ${mpi_origin#none: }" ;;
    *) note nccl-1rank "FAILED (MPI headers were there, $mpi_origin, but configure found no MPI: logs/configure.log)"; failed=1 ;;
  esac
else
  note nccl-1rank "FAILED (configure found NCCL and MPI, but the binary has no nccl transport)"
  failed=1
fi

# The README's main command on the GPU node: it must find the GPU and take the GPU path. A small
# profile of its own keeps this step to a few configurations, and RINGBENCH_BIN to the binary built
# above (run.sh would otherwise configure and build preset `main` from scratch).
if [ "$mode" = run ]; then
  cat >"$OUT/run-sh-profile.json" <<'JSON'
{"name": "run-sh-check", "description": "device-check: scripts/run.sh's GPU path",
 "sweep": {"seq": [8192], "cp": [1, 8], "split": ["contiguous", "zigzag"], "variant": ["ring"], "heads": 16,
           "kv_heads": 2, "head_dim": 128, "dtype": "bfloat16", "backend": "cuda", "transport": "nccl",
           "repeats": 5, "warmup": 1}}
JSON
fi
step run-sh 60 env RINGBENCH_BIN="$ringbench" bash scripts/run.sh --profile "$OUT/run-sh-profile.json" \
  "$OUT/results-run-sh"
[ -f "$OUT/logs/run-sh.log" ] && grep -E '^ringbench: (one GPU|[0-9]+ GPUs|no GPU)' "$OUT/logs/run-sh.log" | tee -a "$summary"

# Sanitizers on the small-shape tests: memcheck (out-of-bounds, misaligned, the stamped copy's
# tails), initcheck (reads of device memory never written: the attention kernel's cp.async loads of
# K and V, which memcheck does not track) and racecheck (shared-memory hazards between the cp.async
# stages and ldmatrix reads). First a trivial kernel of the check's own, plain and under memcheck:
# where the sanitizer cannot run even that (gVisor: "Device not supported"), its steps are skipped
# with the sanitizer's answer, since nothing of ringbench's was tested.
sanitizer_skip=""
probed=""
probe="$OUT/sanitizer-probe"
if ! command -v compute-sanitizer >/dev/null; then
  sanitizer_skip="compute-sanitizer not found"
elif spent; then
  probed="cut" # and so is every sanitizer step
  cut_spent sanitizer-probe
elif ! command -v nvcc >/dev/null; then
  sanitizer_skip="no nvcc to build the sanitizer's probe"
elif [ "$mode" = dry ]; then
  echo "sanitizer probe: $(command -v compute-sanitizer) on a one-kernel program of the check's own: build" \
    "it with nvcc, run it plain, then under memcheck; the sanitizer steps run if it passes, else each is" \
    "'skipped (<the sanitizer's first error line>)'"
else
  cat >"$probe.cu" <<'CU'
// device-check's sanitizer probe: one kernel, one copy back, nothing of ringbench's.
#include <cstdio>
__global__ void iota(int* p) { p[threadIdx.x] = static_cast<int>(threadIdx.x); }
int main() {
  int* d = nullptr;
  int h[32] = {};
  if (cudaMalloc(&d, sizeof h) != cudaSuccess) return std::puts("probe: cudaMalloc failed"), 2;
  iota<<<1, 32>>>(d);
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return std::puts("probe: copy failed"), 2;
  cudaFree(d);
  for (int i = 0; i < 32; ++i)
    if (h[i] != i) return std::puts("probe: wrong values"), 3;
  return std::puts("probe: ok"), 0;
}
CU
  if ! nvcc -o "$probe" "$probe.cu" >"$OUT/logs/sanitizer-probe-build.log" 2>&1; then
    sanitizer_skip="its probe did not build: logs/sanitizer-probe-build.log"
  elif ! "$probe" >"$OUT/logs/sanitizer-probe-plain.log" 2>&1; then
    sanitizer_skip="its probe fails without the sanitizer too: logs/sanitizer-probe-plain.log"
  else
    left=$((deadline - $(date +%s)))
    if spent; then
      probed="cut" # and so is every sanitizer step
    else
      # Passing means the tool ran and reported on the kernel, not merely that the program exited 0.
      timeout --signal=INT --kill-after=10 $((left < 45 ? left : 45)) compute-sanitizer --tool memcheck \
        --error-exitcode 1 "$probe" >"$OUT/logs/sanitizer-probe.log" 2>&1
      rc=$?
      plog="$OUT/logs/sanitizer-probe.log"
      if [ $rc -ne 0 ] || ! grep -q 'ERROR SUMMARY: 0 errors' "$plog" || grep -qE 'Error:|[Nn]ot supported' "$plog"; then
        why="$(grep -m1 -E 'Error:|[Nn]ot supported' "$plog" | sed 's/^=* *//')"
        sanitizer_skip="compute-sanitizer fails on a trivial kernel: ${why:-rc $rc, logs/sanitizer-probe.log}"
      fi
    fi
  fi
  if [ "$probed" = cut ]; then
    cut_spent sanitizer-probe
  else
    note sanitizer-probe "${sanitizer_skip:+unusable: }${sanitizer_skip:-ok}"
  fi
fi
kfilter='KernelsCuda.AttentionMatchesTwinOnRandomSegments:KernelsCuda.MergeMatchesTwin:KernelsCuda.FillMatchesTwinBitForBit:KernelsCuda.StampedCopyMatchesTwinAndStampsItsWindow'
sanitizer_steps=(
  "memcheck-kernels 90 compute-sanitizer --tool memcheck --error-exitcode 1 $bin/tests/device/test_kernels_cuda --gtest_filter=$kfilter"
  "initcheck-kernels 60 compute-sanitizer --tool initcheck --error-exitcode 1 $bin/tests/device/test_kernels_cuda --gtest_filter=KernelsCuda.AttentionMatchesTwinOnRandomSegments"
  "racecheck-kernels 90 compute-sanitizer --tool racecheck --error-exitcode 1 $bin/tests/device/test_kernels_cuda --gtest_filter=KernelsCuda.AttentionMatchesTwinOnLongSegments"
  "memcheck-executor 60 compute-sanitizer --tool memcheck --error-exitcode 1 $bin/tests/device/test_executor_cuda --gtest_filter=ExecutorCuda.GraphReplayEqualsEagerBitForBit:ExecutorCuda.TransfersExecuteInsideTheirInFlightSpans"
)
for s in "${sanitizer_steps[@]}"; do
  read -r -a argv <<<"$s"
  if [ -n "$sanitizer_skip" ]; then
    skip "${argv[0]}" "$sanitizer_skip"
  elif [ "$probed" = cut ]; then
    cut_spent "${argv[0]}"
  else
    step "${argv[@]}"
  fi
done

if spent; then
  cut_spent micro-cuda
elif [ "$mode" = dry ] || [ -x "$bin/bench/micro/ringbench_micro_cuda" ]; then
  step micro-cuda 90 "$bin/bench/micro/ringbench_micro_cuda" --benchmark_min_time=0.1 \
    --benchmark_filter='CudaAttention/D:(64|128)/S:16384/group:8/causal_diag:1|CudaMerge|CudaPassC8|CudaCopyD2D|CudaStampedCopy' \
    --benchmark_out="$OUT/micro_cuda.json" --benchmark_out_format=json
else
  skip micro-cuda "the build has no ringbench_micro_cuda"
fi

step peer-sdpa 90 python3 scripts/peer_sdpa.py --out "$OUT/peer_sdpa.json"

if [ "$mode" = dry ]; then
  covers="all of them"
  [ -n "$budget_end" ] && covers="the steps before $budget_end"
  echo "expected: ${planned_low}-${planned_high}s for the steps with a figure (issue 40's, on 16 cores);" \
    "the ${budget}s budget covers $covers at the upper figures"
  echo "device-check --dry-run: done; a real run exits 1 if any step is FAILED or TIMED OUT (over its own" \
    "limit); a step the ${budget}s budget cuts is 'cut' and fails nothing"
  exit 0
fi
echo "total $(($(date +%s) - start))s of a ${budget}s budget${cuts[0]:+; cut by it: ${cuts[*]}}; logs in $OUT/logs" |
  tee -a "$summary"
exit $failed
