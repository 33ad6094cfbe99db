#!/usr/bin/env bash
# ringbench's main job on this machine: builds the ringbench binary (preset `main`: no tests, so it
# needs no test-only package), picks where to run from the GPUs it finds and what the build can do,
# says what it chose, runs the sweep and prints where the reports and results are.
#
#   no GPU (or a build without CUDA)    profiles/first-run.json on the cpu backend: the strategies
#                                       and the backward's designs side by side (docs/profiles.md)
#   one GPU                             profiles/nightly.json, the local transport: its c ranks are
#                                       virtual ranks on the one GPU
#   N GPUs, NCCL transport and mpirun   profiles/nightly.json once per c <= N of its sweep, as
#                                       `mpirun -np c ... --transport nccl --cp c` into OUT/cp<c>
#                                       (the nccl transport needs one process per rank); c > N is
#                                       left out and said so
#   N GPUs otherwise                    the local transport over the N GPUs (`--devices N`)
#
# Usage: bash scripts/run.sh [--profile FILE] [--dry-run] [OUTPUT_DIR]
#   --profile FILE, RINGBENCH_PROFILE   another profile, e.g. profiles/gpu-short.json (the nightly
#                                       profile is several minutes of GPU time)
#   --dry-run                           print the plan and the commands, run nothing
#   RINGBENCH_GPUS=N                    plan for N GPUs instead of what nvidia-smi lists (0: the CPU)
#   RINGBENCH_BIN=PATH                  use this ringbench binary instead of building one
# Host libraries come from .deps/usr when it is there (scripts/device-deps.sh: a GPU machine with no
# package registry); otherwise a failed configure installs the build packages (setup.sh --build).
# Where the machine has CUDA and cuDNN, the build includes the cudnn kernel: cuDNN's C++ frontend
# headers are fetched into .deps/ first if missing (scripts/pypi-deps.sh), and said so; where that
# cannot be done, it builds without (configure's summary line says why).
# Exit: the worst exit code of the sweeps run (0 ok, 1 a configuration failed, 2 bad input).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
profile="${RINGBENCH_PROFILE:-}"
dry=0
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -p | --profile)
      [ $# -ge 2 ] || { echo "run.sh: --profile needs a file" >&2; exit 2; }
      profile="$2"
      shift 2
      ;;
    --profile=*) profile="${1#*=}"; shift ;;
    --dry-run) dry=1; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
out="${out:-results/$(date +%Y%m%d-%H%M%S)}"
if [ -n "$profile" ] && [ ! -f "$profile" ]; then
  echo "run.sh: --profile '$profile': no such file" >&2
  exit 2
fi

if [ -d .deps/usr ]; then
  export CMAKE_PREFIX_PATH="$PWD/.deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"

if [ -n "${RINGBENCH_GPUS:-}" ]; then
  case "$RINGBENCH_GPUS" in
    '' | *[!0-9]*) echo "run.sh: RINGBENCH_GPUS '$RINGBENCH_GPUS' must be a whole number" >&2; exit 2 ;;
  esac
  gpus="$RINGBENCH_GPUS"
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  gpus="$(nvidia-smi -L | grep -c '^GPU ' || true)"
else
  gpus=0
fi

# Where this machine has cuDNN for a build to use: the headers' or the library's path, or nothing.
cudnn_here() {
  local d
  for d in "${CUDNN_PATH:-}" "${CUDNN_HOME:-}" /usr/local/cuda /usr; do
    [ -n "$d" ] && [ -f "$d/include/cudnn_version.h" ] && { echo "$d/include/cudnn_version.h"; return; }
  done
  ldconfig -p 2>/dev/null | awk '$1 == "libcudnn.so.9" { print $NF; exit }'
}

bin="${RINGBENCH_BIN:-}"
if [ -z "$bin" ]; then
  if command -v nvcc >/dev/null 2>&1 && cudnn="$(cudnn_here)" && [ -n "$cudnn" ]; then
    if [ ! -f .deps/cudnn-frontend/include/cudnn_frontend.h ]; then
      echo "ringbench: cuDNN found ($cudnn): fetching its C++ frontend's headers first (scripts/pypi-deps.sh cudnn-frontend)" >&2
    fi
    bash scripts/pypi-deps.sh cudnn-frontend ||
      echo "ringbench: building without the cudnn kernel (no frontend headers)" >&2
  fi
  log="$(mktemp)"
  if ! cmake --preset main >"$log" 2>&1; then
    echo "ringbench: configuring failed; installing the packages the build needs (scripts/setup.sh --build)" >&2
    tail -5 "$log" >&2
    bash scripts/setup.sh --build
    cmake --preset main >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 2; }
  fi
  grep -E '^-- ringbench ' "$log" >&2 || true
  rm -f "$log"
  cmake --build --preset main --parallel "$(nproc)"
  bin=build/main/bench/ringbench
fi
features="$("$bin" --version | sed -n 's/^built with: //p')"
has() { case " $features " in *" $1 "*) return 0 ;; esac; return 1; }

# One field of the profile's sweep, as words: a list becomes its items.
sweep_field() {
  python3 - "$1" "$2" <<'PY'
import json, sys
sweep = json.load(open(sys.argv[1])).get("sweep", {})
v = sweep.get(sys.argv[2], "")
print(" ".join(str(x) for x in v) if isinstance(v, list) else v)
PY
}

commands=()
dirs=()
if [ "$gpus" -gt 0 ] && ! has cuda; then
  echo "ringbench: $gpus GPU(s) found, but this build has no CUDA backend (no nvcc at configure time): the CPU path" >&2
  gpus=0
fi
if [ "$gpus" -eq 0 ]; then
  profile="${profile:-profiles/first-run.json}"
  choice="no GPU: $profile as written (the cpu backend)"
  commands+=("$(printf '%q ' "$bin" run "$profile" --out "$out")")
  dirs+=("$out")
else
  profile="${profile:-profiles/nightly.json}"
  backend="$(sweep_field "$profile" backend)"
  if [ "$backend" != "cuda" ]; then
    choice="$gpus GPU(s), but $profile runs the ${backend:-cpu} backend: as written"
    commands+=("$(printf '%q ' "$bin" run "$profile" --out "$out")")
    dirs+=("$out")
  elif [ "$gpus" -eq 1 ]; then
    choice="one GPU: $profile with the local transport (its c ranks are virtual ranks on the GPU)"
    commands+=("$(printf '%q ' "$bin" run "$profile" --transport local --out "$out")")
    dirs+=("$out")
  elif has nccl && command -v mpirun >/dev/null 2>&1; then
    choice="$gpus GPUs: $profile over NCCL, one mpirun per c (the nccl transport needs one process per rank)"
    root=()
    [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
    for c in $(sweep_field "$profile" cp); do
      if [ "$c" -gt "$gpus" ]; then
        choice+="; c = $c left out: more ranks than GPUs"
        continue
      fi
      commands+=("$(printf '%q ' mpirun -np "$c" "${root[@]}" "$bin" run "$profile" --transport nccl --cp "$c" --out "$out/cp$c")")
      dirs+=("$out/cp$c")
    done
  else
    why="no mpirun"
    has nccl || why="this build has no nccl transport (NCCL or MPI not found at configure time)"
    choice="$gpus GPUs: $profile with the local transport dealt over them (--devices $gpus; $why)"
    commands+=("$(printf '%q ' "$bin" run "$profile" --transport local --devices "$gpus" --out "$out")")
    dirs+=("$out")
  fi
fi

echo "ringbench: $choice" >&2
for cmd in "${commands[@]}"; do echo "ringbench: $cmd" >&2; done
[ "$dry" -eq 1 ] && exit 0

worst=0
for cmd in "${commands[@]}"; do
  set +e
  eval "$cmd"
  rc=$?
  set -e
  [ "$rc" -gt "$worst" ] && worst=$rc
done
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  abs="$(cd "$d" && pwd)"
  echo "ringbench: report in $abs/report.html, results in $abs/results.json"
done
echo "ringbench: done (exit $worst)"
exit "$worst"
