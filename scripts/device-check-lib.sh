# shellcheck shell=bash disable=SC2034,SC2154  # the variables are device-check.sh's, which sources this
# scripts/device-check.sh's helpers, sourced by it (apart so that each file stays under 600 lines),
# in two parts:
# - its steps and summary lines: note/skip/fail/cut write summary.txt, plan_add adds a step's
#   expected time to the dry run's plan, step runs one step under its own limit and the budget, and
#   first_failure reads a failed step's log for the first failing test and its first error line, so
#   that summary.txt alone says what to act on after one run (issue 50). They use device-check.sh's
#   mode, OUT, summary, budget, deadline, min_step, failed, first_fail, cuts, expect, planned_low,
#   planned_high, budget_end and bin;
# - which cuDNN the node has (cudnn_plan, cudnn_text), each library's CUDA major among it.

note() { printf '%-22s %s\n' "$1" "$2" | tee -a "$summary"; }
skip() { note "$1" "skipped ($2)"; }
# A failure the check finds itself (not a step's exit status): a line, and the first one kept for
# the summary's last line.
fail() {
  note "$1" "FAILED ($2)"
  failed=1
  first_fail="${first_fail:-$1: $2}"
}
# A step the budget stopped or never let start: reported as cut, never as a failure.
cut() {
  cuts+=("$1")
  note "$1" "cut ($2)"
}
# Whether the budget leaves a step under $min_step s (in a run; a dry run plans every step), and the
# cut of a step that therefore does not start.
spent() { [ "$mode" = run ] && [ $((deadline - $(date +%s))) -lt "$min_step" ]; }
cut_spent() { cut "$1" "the ${budget}s budget left $((deadline - $(date +%s)))s, under ${min_step}s"; }

# plan_add NAME FIGURE: the dry run's running total of the expected times ("low-high" or one
# figure); sets plan_e to "FIGUREs, by TOTALs" and prints the budget-end line before the first entry
# that takes the upper total past the budget.
plan_add() {
  planned_low=$((planned_low + ${2%-*}))
  planned_high=$((planned_high + ${2#*-}))
  plan_e="${2}s, by ${planned_high}s"
  if [ "$planned_high" -gt "$budget" ] && [ -z "$budget_end" ]; then
    budget_end=$1
    echo "budget-end             the ${budget}s budget ends here at the upper figures; what follows runs if" \
      "the steps above were faster, else it is cut"
  fi
}

# first_failure LOG [LASTTEST]: what a failed step's log says first, as "first failing test: NAME
# (STATUS)" and "first error: LINE" lines (at most two; "last line: ..." where no line reads as an
# error). A ctest log (--output-on-failure, as the test presets set it): the first test whose
# result line is not Passed, and the first error-like line of its output, else of its block in
# LASTTEST (Testing/Temporary/LastTest.log); a test ctest started and never finished is the one the
# step's limit stopped. A GoogleTest binary's log (the sanitizer steps): the test running at the
# first error line. Any other log: its first error line. Error lines, first tier first: a compiler's
# "error:", Error/ERROR words, a Python exception, GoogleTest's "Failure", compute-sanitizer's
# reports; then FAILED/FAIL (ninja names the object before the compiler's error). A line ending in
# ':' or "Failure" is followed by its next line (two where that one ends in ':' too), which says
# what failed. Lines are cut at 300 characters.
first_failure() {
  local last=""
  [ -n "${2:-}" ] && [ -f "$2" ] && last="$2"
  awk -v last="$last" '
    function clean(s) { gsub(/\r/, "", s); sub(/^[ \t=]+/, "", s); sub(/[ \t]+$/, "", s); return substr(s, 1, 300) }
    function tier(s) {
      if (s ~ /ERROR SUMMARY: 0 errors/ || s ~ /^ *[0-9]+% tests passed/) return 0
      if (s ~ /(^|[^A-Za-z_-])(error|fatal error):/ || s ~ /(^|[^A-Za-z_])(Error|ERROR)([^A-Za-z_]|$)/ ||
          s ~ /^[A-Za-z_.]*(Error|Exception)(:|$)/ || s ~ /(^|[ :])Failure$/ || s ~ /^C\+\+ exception/ ||
          s ~ /^=+ (Invalid|Race|Uninitialized|Program hit|Error)/) return 1
      if (s ~ /(^|[^A-Za-z_])(FAILED|FAIL)([^A-Za-z_]|$)/ || s ~ /(^|[^A-Za-z_-])failed:/) return 2
      return 0
    }
    # An error line of the scope being read: the first of each tier, with its next line where it
    # ends in ":" or "Failure".
    function consider(s, t) {
      if (want_next != "") {
        if (s !~ /[^ \t\r]/) return
        err[want_next] = substr(err[want_next] (err[want_next] ~ /Failure$/ ? ": " : " ") clean(s), 1, 300)
        if (clean(s) !~ /:$/ || ++joined >= 2) want_next = ""
        return
      }
      t = tier(s)
      if (t == 0 || err[t] != "") return
      err[t] = clean(s)
      errtest[t] = gtest
      joined = 0
      if (clean(s) ~ /(:|Failure)$/) want_next = t
    }
    FILENAME == last {
      if ($0 ~ "^[0-9]+/[0-9]+ Testing: ") { n = $0; sub(/^[0-9]+\/[0-9]+ Testing: /, "", n); inlast = (n == ctest) }
      else if ($0 ~ /^<end of output>/) inlast = 0
      else if (inlast && ((err[1] == "" && err[2] == "") || want_next != "")) { lastscope = 1; consider($0) }
      next
    }
    { if ($0 ~ /[^ \t\r]/) tail = $0 }
    /^ *Start +[0-9]+: / {
      running = $0; sub(/^ *Start +[0-9]+: /, "", running); sub(/[ \r]+$/, "", running); inblock = 0; next
    }
    /^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: / {
      rest = $0; sub(/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: /, "", rest); sub(/\r$/, "", rest)
      n = rest; sub(/ .*/, "", n)
      st = rest; sub(/^[^ ]+ +\.*/, "", st); sub(/ +[0-9.]+ sec$/, "", st)
      isctest = 1; running = ""
      if (ctest == "" && (rest ~ /\*\*\*/ || st ~ /^(Failed|Not Run)/)) { ctest = n; ctest_status = st; inblock = 1 }
      else inblock = 0
      next
    }
    /^\[ RUN      \] / { gtest = $0; sub(/^\[ RUN      \] /, "", gtest); sub(/[ \r]+$/, "", gtest) }
    /^\[  FAILED  \] / && gfailed == "" && $0 !~ /listed below/ {
      gfailed = $0; sub(/^\[  FAILED  \] /, "", gfailed); sub(/ \(.*$/, "", gfailed); sub(/\r$/, "", gfailed)
    }
    { if (!isctest || inblock) consider($0) }
    END {
      if (ctest != "") print "first failing test: " ctest " (ctest: " ctest_status ")"
      else if (running != "") print "running when stopped: " running " (ctest)"
      t = err[1] != "" ? 1 : err[2] != "" ? 2 : 0
      if (ctest == "" && running == "") {
        name = t ? errtest[t] : ""
        if (name == "") name = gfailed
        if (name != "") print "first failing test: " name
      }
      if (t) print "first error: " err[t] (lastscope ? " (LastTest.log)" : "")
      else if (tail != "" && running == "") print "last line: " clean(tail)
    }' "$1" ${last:+"$last"} 2>/dev/null
}

# step NAME SECONDS CMD...: runs CMD with a time limit (SECONDS, or what is left of the budget if
# less), its output in logs/NAME.log, one line in summary.txt with status and seconds, and for a
# step that failed or overran its own limit, first_failure's lines under it. A step the budget
# leaves under $min_step s for does not start, and one the budget's end stops is cut: both say so
# and neither fails the check. With skip_rc=N in its environment, exit status N is the command
# saying the machine lacks what it needs: the step is skipped with the log's last line.
# Returns 0 (ok or skipped), 1 (failed or overran its own limit), 3 (cut).
step() {
  local name="$1" limit="$2"
  shift 2
  if [ "$mode" = dry ]; then
    local e="${expect[$name]:--}"
    if [ "$e" != - ]; then
      plan_add "$name" "$e"
      e="$plan_e"
    fi
    printf '%-22s %4ss  expect %-18s %s\n' "$name" "$limit" "$e" "$(printf '%q ' "$@")"
    return 0
  fi
  local t0 rc left status=ok cut_by="" log="$OUT/logs/$name.log" lasttest=""
  t0=$(date +%s)
  left=$((deadline - t0))
  if spent; then
    cut_spent "$name"
    return 3
  fi
  [ "$limit" -gt "$left" ] && { limit=$left; cut_by=yes; }
  timeout --signal=INT --kill-after=10 "$limit" "$@" >"$log" 2>&1
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    if [ -n "$cut_by" ]; then
      cut "$name" "the ${budget}s budget ended it after ${limit}s: logs/$name.log"
      return 3
    fi
    status="TIMED OUT after ${limit}s"
    failed=1
  elif [ -n "${skip_rc:-}" ] && [ $rc -eq "$skip_rc" ]; then
    skip "$name" "$(tail -n 1 "$log" | sed 's/^[^:]*: skipped[: ]*//')"
    return 0
  elif [ $rc -ne 0 ]; then
    status="FAILED (rc $rc)"
    failed=1
  fi
  printf '%-22s %-22s %4ss\n' "$name" "$status" "$(($(date +%s) - t0))" | tee -a "$summary"
  [ $rc -eq 0 ] && return 0
  # ctest keeps every test's whole output in LastTest.log; only this run's is read.
  local lt="$bin/Testing/Temporary/LastTest.log"
  [ "$1" = ctest ] && [ -f "$lt" ] && [ "$(stat -c %Y "$lt")" -ge "$t0" ] && lasttest="$lt"
  local detail
  detail="$(first_failure "$log" "$lasttest")"
  [ -n "$detail" ] && printf '  %s: %s\n' "$name" "${detail//$'\n'/$'\n'  $name: }" | tee -a "$summary"
  [ -z "$first_fail" ] && first_fail="$name: $status${detail:+; ${detail//$'\n'/; }}"
  return 1
}

# The Python side of cudnn_plan: tab-separated lines "headers PATH", "lib PATH VERSION ORIGIN",
# "info TEXT", "torch ok|nocuda|no TEXT", for the wheel's headers, each candidate library and
# PyTorch (whether peer-sdpa can run: it needs torch with CUDA).
cudnn_probe() {
  timeout 30 python3 - "$1" 2>/dev/null <<'PY'
import ctypes, glob, importlib.metadata as md, os, sys
def version(path):
    try:
        v = ctypes.CDLL(path).cudnnGetVersion()
        return f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
    except (OSError, AttributeError) as e:
        return f"unloadable: {e}"
libs = [(sys.argv[1], "the loader's, ldconfig")] if sys.argv[1] else []
try:
    import nvidia.cudnn as m
    for d in m.__path__:
        for h in glob.glob(os.path.join(d, "include", "cudnn_version.h")):
            print("headers", h, sep="\t")
        libs += [(f, "PyTorch's wheel nvidia/cudnn") for f in glob.glob(os.path.join(d, "lib", "libcudnn.so.9"))]
except Exception:
    pass
for dist in ("nvidia-cudnn-cu12", "nvidia-cudnn-cu13"):
    try:
        print("info", f"Python package {dist} {md.version(dist)}", sep="\t")
    except md.PackageNotFoundError:
        pass
try:
    import torch
    print("torch", "ok" if torch.version.cuda else "nocuda", f"PyTorch {torch.__version__}", sep="\t")
    print("info", f"PyTorch {torch.__version__} (CUDA {torch.version.cuda}): torch.backends.cudnn.version() = "
          f"{torch.backends.cudnn.version()}", sep="\t")
    libs += [(f, "torch/lib") for f in glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib", "libcudnn.so.9"))]
except Exception as e:
    why = f"{type(e).__name__}: {str(e).splitlines()[0]}" if str(e) else type(e).__name__
    print("torch", "no", why, sep="\t")
    print("info", f"PyTorch: not importable ({why})", sep="\t")
seen = set()
for f, origin in libs:
    r = os.path.realpath(f)
    if r not in seen:
        seen.add(r)
        print("lib", f, version(f), origin, sep="\t")
PY
}
# The CUDA major a cuDNN library was built for, and how it is known: "12 the wheel
# nvidia_cudnn_cu12-9.1.0.70", "12 libcublasLt.so.12 named by libcudnn_adv.so.9"; nothing where
# nothing says. A wheel's dist name says it (pip's RECORD lists the file); else a CUDA library
# NEEDED by it or a sibling (readelf -d), else the one a sibling names to dlopen (cuDNN 9 links no
# CUDA library: libcudnn_adv and the engines open libcublasLt.so.N and libnvrtc.so.N at run time).
cudnn_cuda_major() {
  local lib="$1" r n f
  case "$lib" in
    */nvidia/cudnn/lib/*)
      for r in "${lib%/nvidia/cudnn/lib/*}"/nvidia_cudnn_cu*.dist-info/RECORD; do
        grep -qs "^nvidia/cudnn/lib/${lib##*/}," "$r" || continue
        r="${r%/RECORD}" && r="${r##*/}" && r="${r%.dist-info}"
        n="$(sed -n 's/^nvidia_cudnn_cu\([0-9][0-9]*\)-.*/\1/p' <<<"$r")"
        [ -n "$n" ] && { echo "$n the wheel $r"; return; }
      done ;;
  esac
  r="$(readlink -f "$lib")"
  for f in "$r" "${r%/*}"/libcudnn*.so.9; do
    [ -f "$f" ] || continue
    n="$(readelf -d "$f" 2>/dev/null | grep -m1 -oE 'lib(cudart|cublas|cublasLt|nvrtc)\.so\.[0-9]+')" ||
      n="$(grep -aoE -m1 'lib(cudart|cublas|cublasLt|nvrtc)\.so\.[0-9]+' "$f" | head -1)"
    [ -n "$n" ] && { echo "${n##*.} $n named by ${f##*/}"; return; }
  done
}
# Which cuDNN the node has, for environment.txt and configure. Headers: the node's own (toolkit,
# system, a PyTorch wheel's nvidia/cudnn/include) before those .deps/ carries (scripts/device-deps.sh).
# Library: the loader's libcudnn.so.9 (ldconfig), else a PyTorch wheel's copy (nvidia/cudnn/lib, or
# torch/lib), each with the version it reports (cudnnGetVersion through ctypes: no GPU needed) and
# the CUDA major it was built for. One built for another major than the build's (a cu12 wheel
# beside CUDA 13) is refused: its runtime-compiled engines need that major's NVRTC, and plan
# building would fail at setup (docs/distributed.md has not tried the mix). The build opens the
# library at run time and asks its version, so headers newer than the library are safe
# (cmake/RingbenchDependencies.cmake); configure is given the library chosen here, which it would
# not find in torch/lib itself, or told to leave cuDNN out where every library found is refused.
# Sets cudnn_headers, cudnn_library, cudnn_info, cudnn_args, cudnn_refused, cuda_major (the build's,
# from nvcc --version), torch_state and torch_why.
cudnn_plan() {
  cudnn_args=()
  cudnn_headers=""
  cudnn_library=""
  cudnn_refused=""
  cudnn_info=()
  torch_state=""
  torch_why="python3 gave no answer"
  local d h ld kind a b c m
  for d in "${CUDNN_PATH:-}" "${CUDNN_HOME:-}" /usr/local/cuda /usr; do
    [ -n "$d" ] && [ -f "$d/include/cudnn_version.h" ] && { h="$d/include/cudnn_version.h"; break; }
  done
  ld="$(ldconfig -p 2>/dev/null | awk '$1 == "libcudnn.so.9" { print $NF; exit }')"
  cuda_major="$("${RINGBENCH_CHECK_NVCC:-nvcc}" --version 2>/dev/null |
    sed -n 's/.*release \([0-9][0-9]*\)\..*/\1/p' | head -1)"
  while IFS=$'\t' read -r kind a b c; do
    case "$kind" in
      headers) [ -z "${h:-}" ] && h="$a" ;;
      lib) m="$(cudnn_cuda_major "$a")"
        if [ -n "$m" ] && [ -n "$cuda_major" ] && [ "${m%% *}" != "$cuda_major" ]; then
          m="built for CUDA ${m%% *} (${m#* }), the build's runtime is CUDA $cuda_major"
          cudnn_info+=("cuDNN library candidate: $a ($b, $c): refused: $m")
          [ -z "$cudnn_refused" ] && cudnn_refused="$a is $m"
        else
          [ -z "$cudnn_library" ] && [ "${b#unloadable}" = "$b" ] && cudnn_library="$a ($b, $c)"
          cudnn_info+=("cuDNN library candidate: $a ($b, $c)${m:+, CUDA ${m%% *} (${m#* })}")
        fi ;;
      torch) torch_state="$a" torch_why="$b" ;;
      *) cudnn_info+=("$a") ;;
    esac
  done < <(cudnn_probe "$ld")
  if [ -n "${h:-}" ]; then
    cudnn_headers="$h ($(sed -n 's/^#define CUDNN_\(MAJOR\|MINOR\|PATCHLEVEL\) *//p' "$h" | paste -sd.))"
  elif [ -f .deps/cudnn/include/cudnn_version.h ]; then
    h=.deps/cudnn/include/cudnn_version.h
    cudnn_headers="none of the node's own; carried: $h ($(sed -n 's/^#define CUDNN_\(MAJOR\|MINOR\|PATCHLEVEL\) *//p' \
      "$h" | paste -sd.), scripts/device-deps.sh)"
  fi
  # Explicitly ON where a library was chosen: a build folder an earlier refusal configured OFF
  # would keep OFF in its cache. Where a library was refused and another chosen, every step opens
  # the chosen one (the binary would try the loader's first, which may be the refused one).
  if [ -n "$cudnn_library" ]; then
    cudnn_args=(-DRINGBENCH_ENABLE_CUDNN=ON "-DRINGBENCH_CUDNN_LIBRARY=${cudnn_library%% (*}")
    [ -n "$cudnn_refused" ] && [ -z "${RINGBENCH_CUDNN_LIBRARY:-}" ] && export RINGBENCH_CUDNN_LIBRARY="${cudnn_library%% (*}"
  elif [ -n "$cudnn_refused" ]; then
    cudnn_args=(-DRINGBENCH_ENABLE_CUDNN=OFF)
  fi
  local fe=.deps/cudnn-frontend/include/cudnn_frontend_version.h
  if [ -f "$fe" ]; then
    cudnn_info+=("cuDNN frontend headers: $fe ($(sed -n 's/^#define CUDNN_FRONTEND_\(MAJOR\|MINOR\|PATCH\)_VERSION *//p' \
      "$fe" | paste -sd.))")
  else
    cudnn_info+=("cuDNN frontend headers: none (.deps/cudnn-frontend: scripts/pypi-deps.sh cudnn-frontend, or device-deps.sh)")
  fi
}
cudnn_text() {
  local none_h="none found (the toolkit, the system, a PyTorch wheel, .deps/cudnn)"
  local none_l="none found (libcudnn.so.9 in ldconfig, a PyTorch wheel, torch/lib)"
  echo "cuDNN headers: ${cudnn_headers:-$none_h}"
  echo "cuDNN library: ${cudnn_library:-$none_l}"
  echo "the build's CUDA major, which a cuDNN library must match: ${cuda_major:-unknown (no nvcc --version)}"
  printf '%s\n' "${cudnn_info[@]}"
  if [ -z "$cudnn_library" ] && [ -n "$cudnn_refused" ]; then
    echo "cuDNN: refused: $cudnn_refused; the build leaves cuDNN out"
  elif [ -z "$cudnn_headers" ] || [ -z "$cudnn_library" ]; then
    echo "cuDNN: none usable here: the build has no cudnn kernel (configure's summary line says why)"
  fi
  [ ${#cudnn_args[@]} -gt 0 ] && echo "cuDNN configure flags: ${cudnn_args[*]}"
  [ -n "$cudnn_refused" ] && [ -n "${RINGBENCH_CUDNN_LIBRARY:-}" ] && echo "cuDNN for every step: RINGBENCH_CUDNN_LIBRARY=$RINGBENCH_CUDNN_LIBRARY"
  return 0
}
