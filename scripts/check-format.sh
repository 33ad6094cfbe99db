#!/usr/bin/env bash
# Checks that every C++/CUDA file (*.cpp *.hpp *.cu *.cuh) git tracks, or would add (new files it
# does not ignore: CI's clean clone has them once committed), is formatted as .clang-format says,
# without changing any file. Installs clang-format with apt-get when none is found (Debian 12
# ships clang-format 14, the version .clang-format was written for; others may format a few lines
# differently).
# Usage: bash scripts/check-format.sh          check; exit 1 when a file needs formatting
#        bash scripts/check-format.sh --fix    format those files in place instead
#        CLANG_FORMAT=clang-format-14 bash scripts/check-format.sh   use that binary
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  *) echo "usage: bash scripts/check-format.sh [--fix]" >&2; exit 2 ;;
esac

find_clang_format() {
  if [ -n "${CLANG_FORMAT:-}" ]; then
    command -v "$CLANG_FORMAT"
    return
  fi
  local c
  for c in clang-format clang-format-14 clang-format-15 clang-format-16 clang-format-17 clang-format-18 \
    clang-format-19; do
    if command -v "$c" >/dev/null 2>&1; then
      command -v "$c"
      return
    fi
  done
  return 1
}

if ! cf=$(find_clang_format); then
  if [ -z "${CLANG_FORMAT:-}" ] && command -v apt-get >/dev/null 2>&1; then
    echo "check-format: installing clang-format"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends clang-format >/dev/null
  fi
  cf=$(find_clang_format) || {
    echo "check-format: no clang-format found (${CLANG_FORMAT:-clang-format, clang-format-14..19});" \
      "install clang-format (apt-get install clang-format) or set CLANG_FORMAT" >&2
    exit 2
  }
fi

version=$("$cf" --version)
major=$(sed -n 's/.*clang-format version \([0-9]*\).*/\1/p' <<<"$version")
echo "check-format: $version ($cf)"
if [ "$major" != 14 ]; then
  echo "check-format: note: .clang-format was tuned with clang-format 14 (Debian 12, CI); version" \
    "${major:-?} may format some lines differently" >&2
fi
[ -f .clang-format ] || { echo "check-format: no .clang-format at the repository root" >&2; exit 2; }

patterns=('*.cpp' '*.hpp' '*.cu' '*.cuh')
files=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] && files+=("$f")  # a tracked file deleted in the working tree is not checked
done < <(git ls-files -z --cached --others --exclude-standard -- "${patterns[@]}")
if [ ${#files[@]} -eq 0 ]; then
  echo "check-format: no C++/CUDA files tracked or new"
  exit 0
fi

if [ "$fix" -eq 1 ]; then
  printf '%s\0' "${files[@]}" | xargs -0 "$cf" -i --style=file
  echo "check-format: formatted ${#files[@]} files in place"
  exit 0
fi

# --dry-run --Werror prints "FILE:LINE:COL: error: code should be clang-formatted" for every
# place that would change and exits non-zero; the files themselves are left alone.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
printf '%s\0' "${files[@]}" | xargs -0 "$cf" --dry-run --Werror --style=file >"$log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
  echo "check-format: ${#files[@]} files formatted as .clang-format says"
  exit 0
fi

mapfile -t bad < <(sed -n 's/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: code should be clang-formatted.*/\1/p' "$log" |
  sort | uniq -c | sort -rn)
if [ ${#bad[@]} -eq 0 ]; then
  # Not a format violation: clang-format itself failed (a bad .clang-format, an unreadable file).
  cat "$log" >&2
  echo "check-format: clang-format failed (exit $rc)" >&2
  exit 2
fi
echo "check-format: ${#bad[@]} of ${#files[@]} files need formatting (places to change per file):"
printf '  %s\n' "${bad[@]}"
echo "first places (clang-format --dry-run):"
grep -m 20 ': error: code should be clang-formatted' "$log" | sed 's/ error: code should be clang-formatted.*//; s/^/  /'
echo "fix: bash scripts/check-format.sh --fix"
exit 1
