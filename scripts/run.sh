#!/usr/bin/env bash
# ringbench's main job on this machine: builds, then runs the smoke profile on the CPU backend, or
# the nightly profile on the CUDA backend when a GPU is present and the CUDA backend is built, and
# prints where the results are. Usage: bash scripts/run.sh [output-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-results/$(date +%Y%m%d-%H%M%S)}"
bash scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default --target ringbench  # the tests are the other command's
bin=build/default/bench/ringbench
profile=profiles/smoke.json
if [ -f profiles/nightly.json ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  profile=profiles/nightly.json
fi
echo "ringbench: running $profile into $out" >&2
set +e
"$bin" run "$profile" --out "$out"
rc=$?
set -e
dir="$(cd "$out" && pwd)"
echo "ringbench: report in $dir/report.html, results in $dir/results.json (exit $rc)"
exit $rc
