#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan, UBSan) and runs each for a bounded
# time from its seed corpus in tests/fuzz/corpus/. New inputs go to a scratch directory, not the
# repo; a crash leaves its input under build/fuzz/artifacts/ and fails the script.
# Usage: bash scripts/fuzz.sh [seconds per target, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
artifacts=build/fuzz/artifacts
mkdir -p "$artifacts"
for target in profile results trace numbers; do
  scratch=$(mktemp -d)
  echo "fuzz: $target for ${seconds}s"
  log="$artifacts/$target.log"
  rc=0
  build/fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$artifacts/${target}-" "$scratch" tests/fuzz/corpus/$target >"$log" 2>&1 || rc=$?
  rm -rf "$scratch"
  if [ "$rc" -ne 0 ]; then
    # The whole report, so a CI log alone is enough to reproduce: the exception or sanitizer
    # message, the stack, and the path of the saved input.
    grep -v '^#' "$log" | tail -n 60
    echo "fuzz: $target found a failure (exit $rc; input saved under $artifacts)"
    exit 1
  fi
  tail -n 4 "$log"
done
echo "fuzz: no failure found"
