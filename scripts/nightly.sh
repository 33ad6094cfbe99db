#!/usr/bin/env bash
# The nightly regression job (docs/nightly.md): runs a profile, compares it with the stored baseline
# (`ringbench compare`), appends the night's results to a history directory (one file per date),
# redraws the asv-style trend page (`ringbench trend`: tonight's verdicts and the steps found over
# the whole history lead it), and exits non-zero on a regression. A profile whose repeats could
# never let compare reach its alpha is refused before anything runs.
#
# Usage: scripts/nightly.sh [-p PROFILE] [-b BASELINE] [-H HISTORY_DIR] [-o OUT_DIR] [-d YYYY-MM-DD]
#                           [--update-baseline] [-- COMPARE_FLAGS...]
#   -p  profile to run (default profiles/nightly.json; profiles/smoke.json on a CPU-only machine)
#   -b  baseline results.json (default: baseline.json beside HISTORY_DIR); made from tonight's run when absent
#   -H  history directory (default nightly/history)
#   -o  where tonight's run, the compare outputs and trend.html go (default nightly/DATE)
#   -d  the date to file tonight under (default: today, UTC)
#   --update-baseline  after a night without regression, tonight's results become the baseline
#   after --, flags for `ringbench compare` (e.g. --metric tflops --threshold 3%)
# Environment: RINGBENCH, the ringbench binary (default build/default/bench/ringbench, else on PATH).
# Exit: 0 no regression; 1 a regression, or a configuration failed tonight; 2 bad usage or input.
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
profile="" baseline="" history="nightly/history" out="" date="$(date -u +%Y-%m-%d)" update=0
compare_flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    -p) profile="$2"; shift 2 ;;
    -b) baseline="$2"; shift 2 ;;
    -H) history="$2"; shift 2 ;;
    -o) out="$2"; shift 2 ;;
    -d) date="$2"; shift 2 ;;
    --update-baseline) update=1; shift ;;
    --) shift; compare_flags=("$@"); break ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "nightly: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# A real calendar date, or trend (which reads the history by file name) would refuse the history
# from then on, hiding every later regression.
if ! [[ "$date" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || [ "$(date -u -d "$date" +%Y-%m-%d 2>/dev/null)" != "$date" ]; then
  echo "nightly: -d '$date' must be a real date, YYYY-MM-DD" >&2; exit 2
fi

bin="${RINGBENCH:-}"
if [ -z "$bin" ]; then
  if [ -x "$root/build/default/bench/ringbench" ]; then bin="$root/build/default/bench/ringbench"
  else bin="$(command -v ringbench || true)"; fi
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "nightly: no ringbench binary (build it, or set RINGBENCH)" >&2; exit 2
fi
# compare's alpha, from the flags given after --, so the run can refuse repeats that could never reach it.
alpha=0.05
for ((i = 0; i < ${#compare_flags[@]}; i++)); do
  case "${compare_flags[$i]}" in
    --alpha) alpha="${compare_flags[$((i + 1))]:-}" ;;
    --alpha=*) alpha="${compare_flags[$i]#--alpha=}" ;;
  esac
done
if [ -z "$profile" ]; then
  profile="$root/profiles/smoke.json"
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then profile="$root/profiles/nightly.json"; fi
fi
[ -n "$out" ] || out="nightly/$date"
[ -n "$baseline" ] || baseline="$(dirname "$history")/baseline.json"  # not inside: the history holds dated files only
mkdir -p "$history" "$out" || exit 2

# 1. Tonight's run. Exit 1 (a configuration failed) still leaves results to compare and keep.
echo "nightly: $date: running $profile" >&2
"$bin" run "$profile" --out "$out/run" --require-power "$alpha"
run_rc=$?
if [ "$run_rc" -eq 2 ]; then echo "nightly: the run refused its input (exit 2)" >&2; exit 2; fi
if [ "$run_rc" -ge 2 ] || [ ! -f "$out/run/results.json" ]; then
  echo "nightly: the run did not produce results (exit $run_rc)" >&2
  exit 2
fi

# 2. Keep it in the history, one file per date (a rerun the same day replaces that day's file).
cp "$out/run/results.json" "$history/$date.json" || exit 2

# 3. Compare with the baseline, or make tonight the baseline when there is none.
compare_rc=0
rm -f "$out/compare.json"  # a rerun into the same folder must not show last run's verdicts
if [ -f "$baseline" ]; then
  "$bin" compare "$baseline" "$out/run/results.json" --html "$out/compare.html" --json-out "$out/compare.json" \
    "${compare_flags[@]}" | tee "$out/compare.txt"
  compare_rc=${PIPESTATUS[0]}
  if [ "$compare_rc" -ge 2 ]; then echo "nightly: compare failed on its input (exit $compare_rc)" >&2; exit 2; fi
else
  echo "nightly: no baseline at $baseline; tonight's results become it" >&2
  cp "$out/run/results.json" "$baseline" || exit 2
fi
if [ "$update" -eq 1 ] && [ "$compare_rc" -eq 0 ] && [ "$run_rc" -eq 0 ]; then
  cp "$out/run/results.json" "$baseline" && echo "nightly: baseline updated from $date" >&2
fi

# 4. The trend page over the whole history.
trend_flags=(--baseline "$baseline")
[ -f "$out/compare.json" ] && trend_flags+=(--compare "$out/compare.json")
"$bin" trend "$history" -o "$out/trend.html" --title "ringbench nightly: $(basename "$profile" .json)" \
  "${trend_flags[@]}" --json >"$out/trend.json" || exit 2

echo "nightly: results $out/run/results.json; compare $out/compare.txt; trend $out/trend.html ($out/trend.json)" >&2
if [ "$compare_rc" -ne 0 ]; then echo "nightly: REGRESSION against $baseline" >&2; exit 1; fi
if [ "$run_rc" -ne 0 ]; then echo "nightly: a configuration failed tonight" >&2; exit 1; fi
exit 0
