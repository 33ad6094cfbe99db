#!/usr/bin/env bash
# Builds ringbench and runs every test this machine can run: first the C++/CUDA formatting check
# (scripts/check-format.sh, .clang-format), then the `ci` preset (everything found, warnings as
# errors; all but the `gpu` label when there is no GPU), then the CPU tests again under
# AddressSanitizer and UndefinedBehaviorSanitizer (`debug` preset), then each libFuzzer target for a
# bounded time. Installs missing packages first.
# Usage: bash scripts/test.sh [preset]   (default: ci, which also runs the sanitizer and fuzz stages)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
bash scripts/setup.sh
if [ "$preset" = ci ]; then
  echo "== format"
  bash scripts/check-format.sh
fi
cmake --preset "$preset"
cmake --build --preset "$preset"
ctest --preset "$preset"
if [ "$preset" = ci ]; then
  echo "== sanitizers (ASan + UBSan), CPU tests"
  cmake --preset debug
  cmake --build --preset debug
  # Timing tests measure the machine, not the code, and mean nothing under ASan (the compare CLI
  # test plants slowdowns in real timings; its code paths run here through the C++ compare tests);
  # the smoke-profile nightly runs a whole sweep, which ASan makes several times slower for no new
  # coverage.
  ctest --preset debug -E 'test_compare_noise|test_gbench_compare|test_nightly_smoke|test_compare_cli|test_ab_noise'
  echo "== fuzzing"
  bash scripts/fuzz.sh "${RINGBENCH_FUZZ_SECONDS:-20}"
fi
