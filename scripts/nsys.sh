#!/usr/bin/env bash
# Captures a ringbench run under Nsight Systems with the flags that make a ring pass readable:
# CUDA API and kernels, NVTX ranges (domain `ringbench`), OS runtime calls, and each node of the
# replayed CUDA Graph as its own kernel (--cuda-graph-trace=node; the default `graph` shows one
# opaque range per replay). ringbench itself gets --no-cupti: Nsight Systems and ringbench's own
# CUPTI tracer cannot both subscribe to CUPTI in one process. docs/nsight.md explains the timeline.
#
# Usage: scripts/nsys.sh [-o REPORT] [--dry-run] [-- ] RINGBENCH_ARGS...
#   e.g. scripts/nsys.sh -o ring-c8 run profiles/llama3-405b-cp16.json --out results/nsys
#   -o         report name without extension (default ringbench-<date>-<time>; nsys adds .nsys-rep)
#   --dry-run  print the command instead of running it
# Environment: RINGBENCH (the binary; default build/default/bench/ringbench, else on PATH), NSYS
# (default nsys on PATH or under /usr/local/cuda), NSYS_EXTRA (more nsys flags, space-separated).
# Exit: nsys's exit code (ringbench's, when nsys passes it through); 2 when nsys or ringbench is missing.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
report="ringbench-$(date +%Y%m%d-%H%M%S)" dry=0
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -o) report="$2"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --) shift; args+=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ ${#args[@]} -eq 0 ]; then
  echo "nsys.sh: give the ringbench arguments, e.g. scripts/nsys.sh run profiles/smoke.json (see --help)" >&2
  exit 2
fi

bin="${RINGBENCH:-}"
if [ -z "$bin" ]; then
  if [ -x "$root/build/default/bench/ringbench" ]; then bin="$root/build/default/bench/ringbench"
  else bin="$(command -v ringbench || echo ringbench)"; fi
fi
nsys="${NSYS:-$(command -v nsys || true)}"
if [ -z "$nsys" ]; then
  for c in /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys; do
    if [ -x "$c" ]; then nsys="$c"; break; fi
  done
fi

# --no-cupti only means something to the commands that measure (run, accept); others take it as an error.
case "${args[0]}" in
  run|accept) args+=(--no-cupti) ;;
esac

cmd=("${nsys:-nsys}" profile
     --trace=cuda,nvtx,osrt
     --cuda-graph-trace=node
     --sample=none --cpuctxsw=none
     --force-overwrite=true
     -o "$report")
if [ -n "${NSYS_EXTRA:-}" ]; then
  read -r -a extra <<< "$NSYS_EXTRA"
  cmd+=("${extra[@]}")
fi
cmd+=("$bin" "${args[@]}")

if [ "$dry" -eq 1 ]; then
  echo "${cmd[*]}"
  exit 0
fi
if [ -z "$nsys" ]; then
  echo "nsys.sh: Nsight Systems (nsys) not found; install it or set NSYS" >&2
  exit 2
fi
echo "nsys.sh: writing $report.nsys-rep" >&2
exec "${cmd[@]}"
