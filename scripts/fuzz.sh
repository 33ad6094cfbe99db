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
for target in profile results trace; do
  scratch=$(mktemp -d)
  echo "fuzz: $target for ${seconds}s"
  build/fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$artifacts/${target}-" "$scratch" tests/fuzz/corpus/$target 2>&1 | tail -n 4
  rc=${PIPESTATUS[0]}
  rm -rf "$scratch"
  [ "$rc" -eq 0 ] || { echo "fuzz: $target found a failure (see $artifacts)"; exit 1; }
done
echo "fuzz: no failure found"
