#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan, UBSan) and runs each for a bounded
# time from its seed corpus in tests/fuzz/corpus/, as many at once as the machine has cores (each
# target still gets its full time on a core of its own). New inputs go to a scratch directory, not
# the repo; a crash leaves its input under build/fuzz/artifacts/ and fails the script.
# Usage: bash scripts/fuzz.sh [seconds per target, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
artifacts=build/fuzz/artifacts
mkdir -p "$artifacts"
targets=(profile results trace numbers)
jobs="$(nproc 2>/dev/null || echo 1)"
scratch_root=$(mktemp -d)
trap 'rm -rf "$scratch_root"' EXIT
fuzz_one() {
  local target=$1 scratch="$scratch_root/$1"
  mkdir -p "$scratch"
  build/fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$artifacts/${target}-" "$scratch" tests/fuzz/corpus/$target >"$artifacts/$target.log" 2>&1
}
# Targets run `jobs` at a time; each one's exit code is kept for the report below.
declare -A rc
pids=()
for target in "${targets[@]}"; do
  echo "fuzz: $target for ${seconds}s"
  fuzz_one "$target" &
  pids+=("$!:$target")
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    entry=${pids[0]}
    pids=("${pids[@]:1}")
    wait "${entry%%:*}" && rc[${entry#*:}]=0 || rc[${entry#*:}]=$?
  fi
done
for entry in "${pids[@]}"; do
  wait "${entry%%:*}" && rc[${entry#*:}]=0 || rc[${entry#*:}]=$?
done
failed=0
for target in "${targets[@]}"; do
  log="$artifacts/$target.log"
  if [ "${rc[$target]}" -ne 0 ]; then
    # The whole report, so a CI log alone is enough to reproduce: the exception or sanitizer
    # message, the stack, and the path of the saved input.
    grep -v '^#' "$log" | tail -n 60
    echo "fuzz: $target found a failure (exit ${rc[$target]}; input saved under $artifacts)"
    failed=1
  else
    echo "fuzz: $target"
    tail -n 4 "$log"
  fi
done
[ "$failed" -eq 0 ] || exit 1
echo "fuzz: no failure found"
