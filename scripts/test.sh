#!/usr/bin/env bash
# Builds ringbench and runs every test this machine can run: first the C++/CUDA formatting check
# (scripts/check-format.sh, .clang-format), then the `ci` preset (everything found, warnings as
# errors; all but the `gpu` label when there is no GPU), then the CPU tests again under
# AddressSanitizer and UndefinedBehaviorSanitizer (`debug` preset), then each libFuzzer target for a
# bounded time. Installs missing packages first. Each stage prints its wall time when it ends, and
# the last line sums them up, so a CI log shows where its minutes went.
#
# CI runs this on a clean clone within a budget of 20 minutes (issue 41; docs/performance.md, "The
# test command's time"). Each stage has a share of it below; when the whole runs past the budget the
# last lines warn, naming every stage over its share, so the change that doubled a stage is seen the
# day it lands. A warning, never a failure: a red CI would lose the work, not the minutes.
#
# Usage: bash scripts/test.sh [--dry-run] [preset]   (default: ci, which also runs the sanitizer and
#        fuzz stages)
#   --dry-run   print each stage's commands and run none; RINGBENCH_TEST_FAKE_SECONDS="stage=N;..."
#               then stands in for the stages' times (tests/cmake/test_test_script.py)
#   RINGBENCH_TEST_BUDGET_S   the whole's budget in seconds (default 1200)
set -euo pipefail
cd "$(dirname "$0")/.."
dry=0
if [ "${1:-}" = "--dry-run" ]; then
  dry=1
  shift
fi
preset="${1:-ci}"
budget_total="${RINGBENCH_TEST_BUDGET_S:-1200}"
# Each stage's share of the budget, in seconds on CI's 2-core machine from a clean clone: the
# development VM's fresh-clone log of 2026-12-06 18:20, after the clang sanitizer build (setup as
# on a machine without the packages; docs/performance.md, "The test command's time"), scaled up to
# the budget. They add up to it.
declare -A share=(
  ["setup"]=55
  ["format"]=5
  ["build (ci)"]=254
  ["tests (ci)"]=335
  ["build (sanitizers: ASan + UBSan)"]=150
  ["tests (sanitizers), CPU"]=285
  ["fuzzing"]=116
)
declare -A fake=()
if [ "$dry" -eq 1 ] && [ -n "${RINGBENCH_TEST_FAKE_SECONDS:-}" ]; then
  IFS=';' read -r -a pairs <<<"$RINGBENCH_TEST_FAKE_SECONDS"
  for p in "${pairs[@]}"; do fake["${p%%=*}"]="${p#*=}"; done
fi
# A command of a stage; in a dry run only its words.
act() {
  if [ "$dry" -eq 1 ]; then
    echo "  $*"
  else
    "$@"
  fi
}
times=()
total=0
over=()
stage_start=$SECONDS
stage_name=""
stage() {
  if [ -n "$stage_name" ]; then
    local took=$((SECONDS - stage_start))
    [ -z "${fake[$stage_name]:-}" ] || took=${fake[$stage_name]}
    echo "== $stage_name: $took s"
    times+=("$stage_name $took s")
    total=$((total + took))
    local mine=${share[$stage_name]:-0}
    [ "$took" -le "$mine" ] || over+=("$stage_name $took s (its share $mine s)")
  fi
  stage_name="$1"
  stage_start=$SECONDS
  [ -z "$stage_name" ] || echo "== $stage_name"
}
stage setup
act bash scripts/setup.sh
if [ "$preset" = ci ]; then
  stage format
  act bash scripts/check-format.sh
fi
stage "build ($preset)"
act cmake --preset "$preset"
act cmake --build --preset "$preset"
if [ "$preset" = ci ]; then
  # Every build here is a unity build: a file that compiles only inside its batch would break the
  # day a new file shifts the batches. The files changed since the previous landing
  # (.ci/alone-base) are compiled alone, with their targets' flags (scripts/check_alone.py).
  act python3 scripts/check_alone.py build/ci
fi
stage "tests ($preset)"
act ctest --preset "$preset"
if [ "$preset" = ci ]; then
  stage "build (sanitizers: ASan + UBSan)"
  act cmake --preset debug
  act cmake --build --preset debug
  stage "tests (sanitizers), CPU"
  # Timing tests measure the machine, not the code, and mean nothing under ASan (the compare CLI
  # test plants slowdowns in real timings; its code paths run here through the C++ compare tests);
  # the smoke-profile nightly runs a whole sweep, and the six-night script test six A/B pairs and
  # their repeats, which ASan makes several times slower for no new coverage (the script is bash;
  # the compare, trend and ab code it drives runs here through their own tests). The peer
  # comparisons (HTA over our traces, asv over our histories) check figures against another tool's,
  # as the Google Benchmark one does: 109 CPU-seconds under ASan, for code whose own tests run here.
  # The browser tests (`_chromium`) time Chromium rendering a page; the C++ that writes the
  # page runs here through the report, trend and fleet tests. Under RINGBENCH_SANITIZED a few Python
  # tests run less, each saying why beside it: measured figures or memory bounds, and repeated draws
  # of data through one path (docs/performance.md).
  act ctest --preset debug -E 'test_compare_noise|test_gbench_compare|test_nightly_smoke|test_nightly_script|test_compare_cli|test_ab_noise|test_hta_traces|test_asv_step_detect|_chromium'
  stage fuzzing
  act bash scripts/fuzz.sh "${RINGBENCH_FUZZ_SECONDS:-20}"
fi
stage ""
echo "test.sh: ${times[*]/%/;} total $total s"
if [ "$total" -gt "$budget_total" ]; then
  echo "test.sh: WARNING: $total s is over the budget of $budget_total s that CI's clean clone must keep (issue 41)"
  for o in "${over[@]}"; do echo "test.sh: WARNING: over its share: $o"; done
fi
