#!/bin/sh
# expect_exit.sh CODE PATTERN COMMAND...: runs COMMAND and passes when it exits with CODE and its
# stderr matches the grep -E PATTERN (the message must name the flag, the value or the rule).
code=$1
pattern=$2
shift 2
err=$("$@" 2>&1 >/dev/null)
rc=$?
if [ "$rc" -ne "$code" ]; then
  echo "exit code $rc, expected $code: $*" >&2
  echo "$err" >&2
  exit 1
fi
if ! printf '%s\n' "$err" | grep -Eq -- "$pattern"; then
  echo "stderr does not match '$pattern': $err" >&2
  exit 1
fi
printf '%s\n' "$err"
