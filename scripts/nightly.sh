#!/usr/bin/env bash
# The nightly regression job (docs/nightly.md): runs a profile, compares it with the stored baseline
# (`ringbench compare`), appends the night's results to a history directory (one file per date),
# redraws the asv-style trend page (`ringbench trend`: tonight's verdicts and the steps found over
# the whole history lead it), and exits non-zero on a regression. A profile whose repeats could
# never let compare reach its alpha is refused before anything runs. With -B, tonight's build and
# the baseline commit's build are measured side by side (`ringbench ab`) and compared as a pair.
#
# Usage: scripts/nightly.sh [-p PROFILE] [-b BASELINE] [-H HISTORY_DIR] [-o OUT_DIR] [-d YYYY-MM-DD]
#                           [-B|--ab COMMIT] [--builds DIR] [--update-baseline] [-- COMPARE_FLAGS...]
#   -p  profile to run (default profiles/nightly.json; profiles/smoke.json on a CPU-only machine)
#   -b  baseline results.json (default: baseline.json beside HISTORY_DIR); made from tonight's run when absent
#   -H  history directory (default nightly/history)
#   -o  where tonight's run, the compare outputs and trend.html go (default nightly/DATE)
#   -d  the date to file tonight under (default: today, UTC)
#   -B, --ab COMMIT  A/B mode: build COMMIT (a git worktree, cached by commit under --builds) and run it
#       and tonight's build as a pair; a commit that does not build, or a build that predates A/B runs,
#       falls back to tonight's plain run against BASELINE ("fallback: ..." in the output)
#   --builds DIR  the cache of baseline builds, one worktree per commit (default: builds/ beside HISTORY_DIR)
#   --update-baseline  after a night without regression, tonight's results become the baseline
#   after --, flags for `ringbench compare` (e.g. --metric tflops --threshold 3%)
# Environment: RINGBENCH, the ringbench binary (default build/default/bench/ringbench, else on PATH).
#   A/B mode: RINGBENCH_BASE_BIN, a baseline binary to use instead of building COMMIT (still checked
#   against it); RINGBENCH_REPO, the repository COMMIT is in (default: this checkout);
#   RINGBENCH_BASE_BUILD, the build command run in the worktree, which must leave
#   build/main/bench/ringbench (default: the README's `cmake --preset main` and `cmake --build --preset main`).
# Exit: 0 no regression; 1 a regression, or a configuration failed tonight; 2 bad usage or input
#   (a flag without its value, -o or -b inside the history, another night running into -o).
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
profile="" baseline="" history="nightly/history" out="" date="$(date -u +%Y-%m-%d)" update=0
ab_commit="" builds=""
compare_flags=()
# Bad usage is exit 2, never 1 (cron reads 1 as a regression): a flag at the end without its value
# tripped `set -u` and exited 1.
usage_error() { echo "nightly: $1 (see --help)" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -p|-b|-H|-o|-d|-B|--ab|--builds)
      [ $# -ge 2 ] && [ -n "$2" ] || usage_error "$1 needs a value"
      case "$1" in
        -p) profile="$2" ;; -b) baseline="$2" ;; -H) history="$2" ;; -o) out="$2" ;; -d) date="$2" ;;
        --builds) builds="$2" ;; *) ab_commit="$2" ;;
      esac
      shift 2 ;;
    --update-baseline) update=1; shift ;;
    --) shift; compare_flags=("$@"); break ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown argument '$1'" ;;
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
# The history holds dated results files only: a night's folder or a baseline inside it would be read
# by every later trend as a night (or refused, with every later regression hidden), and a history
# inside a folder the night replaces would be deleted with it.
within() {  # whether path $1 is $2 or lies inside it, both resolved as far as they exist
  local p h
  p="$(realpath -m -- "$1")" h="$(realpath -m -- "$2")"
  [ "$p" = "$h" ] || [ "${p#"$h"/}" != "$p" ]
}
within "$out" "$history" && usage_error "-o '$out' lies inside the history $history, which holds dated results files only"
within "$baseline" "$history" &&
  usage_error "-b '$baseline' lies inside the history $history, which holds dated results files only"
for sub in run ab repeat; do
  within "$history" "$out/$sub" && usage_error "-H '$history' lies inside $out/$sub, which each night replaces"
done
# A/B mode: the baseline commit, resolved before anything is written.
repo="${RINGBENCH_REPO:-$root}" sha=""
if [ -n "$ab_commit" ]; then
  sha="$(git -C "$repo" rev-parse --verify --quiet "$ab_commit^{commit}" 2>/dev/null)"
  if [ -z "$sha" ]; then echo "nightly: -B '$ab_commit' names no commit in $repo" >&2; exit 2; fi
  [ -n "$builds" ] || builds="$(dirname "$history")/builds"
fi
mkdir -p "$history" "$out" || exit 2
# One night at a time in -o, from here on: before anything in it is deleted or written (a second
# `-B` night into the same folder deleted the first pair's folder while it ran, and two pairs then
# measured at once on the same cores). The lock is ringbench's own (a flock on the folder) and ends
# with this script and whatever it started, however they end.
exec {out_lock}<"$out" || exit 2
if ! flock -n "$out_lock"; then
  echo "nightly: -o '$out' is in use: another night (or ringbench) holds its lock; wait for it or choose another folder" >&2
  exit 2
fi

# The commit a ringbench binary was built from: its --version `git:` line (tool.git_sha), or "".
binary_commit() { "$1" --version 2>/dev/null | sed -n 's/^git: //p' | head -n 1; }
# Whether binary $1 says it was built from the full sha $2. Never trusted from a folder's name: a
# checkout moved under a build folder, or a folder copied, leaves a binary of another commit there.
built_from() {
  local short
  short="$(binary_commit "$1")"
  [[ "$short" =~ ^[0-9a-f]{7,40}$ ]] && [ "${2#"$short"}" != "$2" ]
}
fallback=""  # why A/B mode fell back to tonight's plain run against the stored baseline
# Sets base_bin to the baseline commit's build, from the cache (checked) or built in a worktree
# there; or sets fallback.
baseline_build() {
  if [ -n "${RINGBENCH_BASE_BIN:-}" ]; then
    base_bin="$RINGBENCH_BASE_BIN"
  else
    mkdir -p "$builds" && builds="$(cd "$builds" && pwd)" || { fallback="cannot make the build cache $builds"; return; }
    local wt="$builds/$sha"
    base_bin="$wt/build/main/bench/ringbench"
    if [ -x "$base_bin" ] && built_from "$base_bin" "$sha"; then
      echo "nightly: baseline $sha: the cached build in $wt" >&2
      return
    fi
    if [ -e "$base_bin" ]; then
      echo "nightly: the cached build in $wt says git '$(binary_commit "$base_bin")', not $sha: building it again" >&2
    fi
    echo "nightly: baseline $sha: building it in a worktree, $wt (log: $out/base-build.log)" >&2
    git -C "$repo" worktree remove --force "$wt" >/dev/null 2>&1
    rm -rf "$wt"
    git -C "$repo" worktree prune
    if ! git -C "$repo" worktree add --detach --force "$wt" "$sha" >"$out/base-build.log" 2>&1; then
      fallback="the baseline commit $sha could not be checked out in $wt (see $out/base-build.log)"
      return
    fi
    local frontend="$root/.deps/cudnn-frontend/include" configure=(cmake --preset main)
    [ -d "$frontend" ] && configure+=("-DRINGBENCH_CUDNN_FRONTEND_DIR=$frontend")
    local build="${RINGBENCH_BASE_BUILD:-$(printf '%q ' "${configure[@]}")&& cmake --build --preset main --parallel $(nproc)}"
    if ! (cd "$wt" && bash -c "$build") >>"$out/base-build.log" 2>&1; then
      fallback="the baseline commit $sha does not build (see $out/base-build.log)"
      return
    fi
  fi
  if [ ! -x "$base_bin" ]; then fallback="no baseline binary at $base_bin"; return; fi
  if ! built_from "$base_bin" "$sha"; then
    local says
    says="$(binary_commit "$base_bin")"
    if [ -z "$says" ]; then
      fallback="the baseline build $base_bin predates A/B runs (its --version prints no git line)"
    else
      fallback="the baseline build $base_bin says git '$says', not $sha"
    fi
  fi
}

# 1. Tonight's run. Exit 1 (a configuration failed) still leaves results to compare and keep.
# A/B mode: beside the baseline commit's build, round by round (`ringbench ab`, docs/nightly.md).
mode=single
if [ -n "$sha" ]; then
  baseline_build
  if [ -z "$fallback" ]; then
    echo "nightly: $date: running $profile, tonight's build and $sha's side by side" >&2
    rm -rf "$out/ab"
    "$bin" ab "$base_bin" "$profile" --require-power "$alpha" --out "$out/ab" 2>&1 >"$out/ab.out" | tee "$out/ab.log" >&2
    ab_rc=${PIPESTATUS[0]}
    last="$(grep -v '^ringbench ab: ' "$out/ab.log" | tail -n 1)"
    if [ "$ab_rc" -le 1 ] && [ -f "$out/ab/base/results.json" ] && [ -f "$out/ab/new/results.json" ] &&
      ! grep -q '^ringbench: failed: ' "$out/ab.log"; then
      mode=ab
    elif [ "$ab_rc" -eq 2 ] && grep -q '^ringbench: error: BASE_BIN: ' "$out/ab.log"; then
      fallback="the baseline build cannot run tonight's A/B pair: ${last#ringbench: error: }"
    elif [ "$ab_rc" -eq 2 ]; then
      echo "nightly: the A/B run refused its input (exit 2)" >&2; exit 2
    else
      fallback="the A/B run broke off (exit $ab_rc): ${last:-no message}"
    fi
  fi
  [ -z "$fallback" ] || echo "nightly: fallback: $fallback; tonight's plain run is compared with the stored baseline $baseline" >&2
fi
if [ "$mode" = ab ]; then
  tonight="$out/ab/new/results.json" against="$out/ab/base/results.json"
  # The night fails on tonight's configurations only; the baseline build's are its own.
  run_rc=0
  python3 -c 'import json, sys; sys.exit(any(r.get("status") == "failed" for r in json.load(open(sys.argv[1]))["runs"]))' \
    "$tonight" || run_rc=1
else
  echo "nightly: $date: running $profile" >&2
  "$bin" run "$profile" --out "$out/run" --require-power "$alpha"
  run_rc=$?
  if [ "$run_rc" -eq 2 ]; then echo "nightly: the run refused its input (exit 2)" >&2; exit 2; fi
  if [ "$run_rc" -ge 2 ] || [ ! -f "$out/run/results.json" ]; then
    echo "nightly: the run did not produce results (exit $run_rc)" >&2
    exit 2
  fi
  tonight="$out/run/results.json" against="$baseline"
fi

# 2. Keep it in the history, one file per date (a rerun the same day replaces that day's file).
cp "$tonight" "$history/$date.json" || exit 2

# 3. Compare with the baseline (A/B: the pair), or make tonight the baseline when there is none.
compare_rc=0
rm -f "$out/compare.json"  # a rerun into the same folder must not show last run's verdicts
# A fallback night says so first, wherever its verdicts are read.
if [ -n "$fallback" ]; then echo "fallback: $fallback" >"$out/compare.txt"; elif [ -f "$against" ]; then : >"$out/compare.txt"; fi
if [ -f "$against" ]; then
  "$bin" compare "$against" "$tonight" --html "$out/compare.html" --json-out "$out/compare.json" \
    "${compare_flags[@]}" | tee -a "$out/compare.txt"
  compare_rc=${PIPESTATUS[0]}
  if [ "$compare_rc" -ge 2 ]; then echo "nightly: compare failed on its input (exit $compare_rc)" >&2; exit 2; fi
fi
# 3b. A regression must repeat (A/B mode). The configurations the pair called SLOWER are measured
# again as a fresh pair, minutes later; only those SLOWER in both pairs fail the night. A burst
# that hit the first pair does not hit the same configurations of the repeat the same way; a real
# slowdown does. Other regressions (a configuration that failed, UNDERPOWERED) stand as they are.
if [ "$mode" = ab ] && [ "$compare_rc" -eq 1 ] && [ -f "$out/compare.json" ]; then
  slower="$(python3 -c 'import json, sys
print(",".join(r["id"] for r in json.load(open(sys.argv[1]))["runs"] if r["verdict"] == "SLOWER"))' "$out/compare.json")"
  others="$(python3 -c 'import json, sys
print(sum(1 for r in json.load(open(sys.argv[1]))["runs"] if r["regression"] and r["verdict"] != "SLOWER"))' \
    "$out/compare.json")"
  if [ -n "$slower" ]; then
    echo "nightly: measuring the SLOWER configurations again as a fresh pair: $slower" >&2
    rm -rf "$out/repeat"
    "$bin" ab "$base_bin" "$profile" --require-power "$alpha" --only "$slower" --out "$out/repeat" \
      >"$out/repeat.out" 2>"$out/repeat.log"
    repeat_rc=$?
    if [ "$repeat_rc" -le 1 ] && [ -f "$out/repeat/base/results.json" ] && [ -f "$out/repeat/new/results.json" ]; then
      { echo; echo "repeat of the SLOWER configurations, a fresh pair:"; } >>"$out/compare.txt"
      "$bin" compare "$out/repeat/base/results.json" "$out/repeat/new/results.json" --repeat-of "$out/compare.json" \
        --json-out "$out/repeat-compare.json" "${compare_flags[@]}" | tee -a "$out/compare.txt"
      confirm_rc=${PIPESTATUS[0]}
      if [ "$confirm_rc" -ge 2 ]; then echo "nightly: compare failed on the repeat (exit $confirm_rc)" >&2; exit 2; fi
      if [ "$confirm_rc" -eq 0 ] && [ "$others" -eq 0 ]; then
        echo "nightly: no SLOWER configuration was SLOWER again in the repeat: not a regression" >&2
        compare_rc=0
      fi
    else
      echo "nightly: the repeat broke off (exit $repeat_rc, see $out/repeat.log): the first verdicts stand" >&2
    fi
  fi
fi
if [ ! -f "$baseline" ]; then
  echo "nightly: no baseline at $baseline; tonight's results become it" >&2
  cp "$tonight" "$baseline" || exit 2
fi
if [ "$update" -eq 1 ] && [ "$compare_rc" -eq 0 ] && [ "$run_rc" -eq 0 ]; then
  cp "$tonight" "$baseline" && echo "nightly: baseline updated from $date" >&2
fi

# 4. The trend page over the whole history.
trend_flags=(--baseline "$baseline")
[ -f "$out/compare.json" ] && trend_flags+=(--compare "$out/compare.json")
"$bin" trend "$history" -o "$out/trend.html" --title "ringbench nightly: $(basename "$profile" .json)" \
  "${trend_flags[@]}" --json >"$out/trend.json" || exit 2

echo "nightly: results $tonight; compare $out/compare.txt; trend $out/trend.html ($out/trend.json)" >&2
[ -z "$fallback" ] || echo "nightly: fallback: $fallback" >&2
if [ "$compare_rc" -ne 0 ]; then
  if [ "$mode" = ab ]; then echo "nightly: REGRESSION against the baseline commit $sha" >&2
  else echo "nightly: REGRESSION against $baseline" >&2; fi
  exit 1
fi
if [ "$run_rc" -ne 0 ]; then echo "nightly: a configuration failed tonight" >&2; exit 1; fi
exit 0
