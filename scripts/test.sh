#!/usr/bin/env bash
# Builds ringbench and runs every test this machine can run: first the C++/CUDA formatting check
# (scripts/check-format.sh, .clang-format), then the `ci` preset (everything found, warnings as
# errors; all but the `gpu` label when there is no GPU), then the CPU tests again under
# AddressSanitizer and UndefinedBehaviorSanitizer (`debug` preset), then each libFuzzer target for a
# bounded time. Installs missing packages first. Each stage prints its wall time when it ends, and
# the last line sums them up, so a CI log shows where its minutes went.
# Usage: bash scripts/test.sh [preset]   (default: ci, which also runs the sanitizer and fuzz stages)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
times=()
stage_start=$SECONDS
stage_name=""
stage() {
  if [ -n "$stage_name" ]; then
    echo "== $stage_name: $((SECONDS - stage_start)) s"
    times+=("$stage_name $((SECONDS - stage_start)) s")
  fi
  stage_name="$1"
  stage_start=$SECONDS
  [ -z "$stage_name" ] || echo "== $stage_name"
}
stage setup
bash scripts/setup.sh
if [ "$preset" = ci ]; then
  stage format
  bash scripts/check-format.sh
fi
stage "build ($preset)"
cmake --preset "$preset"
cmake --build --preset "$preset"
stage "tests ($preset)"
ctest --preset "$preset"
if [ "$preset" = ci ]; then
  stage "build (sanitizers: ASan + UBSan)"
  cmake --preset debug
  cmake --build --preset debug
  stage "tests (sanitizers), CPU"
  # Timing tests measure the machine, not the code, and mean nothing under ASan (the compare CLI
  # test plants slowdowns in real timings; its code paths run here through the C++ compare tests);
  # the smoke-profile nightly runs a whole sweep, and the six-night script test six A/B pairs and
  # their repeats, which ASan makes several times slower for no new coverage (the script is bash;
  # the compare, trend and ab code it drives runs here through their own tests).
  ctest --preset debug -E 'test_compare_noise|test_gbench_compare|test_nightly_smoke|test_nightly_script|test_compare_cli|test_ab_noise'
  stage fuzzing
  bash scripts/fuzz.sh "${RINGBENCH_FUZZ_SECONDS:-20}"
fi
stage ""
echo "test.sh: ${times[*]/%/;} total $SECONDS s"
