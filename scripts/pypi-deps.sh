#!/usr/bin/env bash
# What ringbench takes from PyPI, for what only PyPI has, into folders of the project (git-ignored
# .deps/), never system-wide. The one mechanism for every such package; the versions are pinned here.
#
#   bash scripts/pypi-deps.sh cudnn-frontend   the cuDNN frontend's C++ headers (MIT), unpacked from
#                                              the nvidia-cudnn-frontend wheel (no dependencies, no
#                                              Python) into .deps/cudnn-frontend/include
#   bash scripts/pypi-deps.sh tools            the field's own tools the tests use as peers (Meta's
#                                              Holistic Trace Analysis, asv), `pip install --target`
#                                              into .deps/pytools for Debian's /usr/bin/python3
#   bash scripts/pypi-deps.sh cuobjdump        NVIDIA's cuobjdump (the CUDA toolkit's, which this
#                                              machine's toolkit lacks), unpacked from the
#                                              nvidia-cuda-cuobjdump wheel into .deps/cuobjdump/bin:
#                                              the kernels' resource-usage test reads it
#   bash scripts/pypi-deps.sh --where GROUP    prints the folder GROUP installs into, and nothing else
#
# A group already installed at its pinned versions is left as it is (a stamp file records what was
# installed). Where PyPI cannot be reached, or pip is missing, it prints one line
#   pypi-deps: offline: GROUP not fetched (REASON)
# on stderr and exits 3, so a caller can carry on without GROUP and say what it skips; any other
# failure exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned. The frontend's headers are the same in every wheel of a version; the cp311 manylinux one is
# asked for by name so the download does not depend on the local Python.
cudnn_frontend_version="1.32.0"
# The tools group also pins what HTA imports at run time, at the versions its tests passed with, so a
# new pandas or numpy cannot change what CI runs. They are PyPI's, not Debian's: HTA 0.5.0 wants newer
# plotly (>= 5.11) and networkx (>= 3.1) than Debian 12 has, and pip --target installs every
# dependency anyway. The folder's numpy 2 cannot share a process with Debian's scipy (built for numpy
# 1.24), so the tests run these tools in processes of their own (tests/pylib: pytools_run).
tools_requirements=(
  "holistictraceanalysis==0.5.0"
  "asv==0.6.6"
  "numpy==2.4.6"
  "pandas==3.1.1"
  "plotly==7.1.0"
  "networkx==3.6.1"
)

# cuobjdump: 13.0 is not on PyPI; 13.2.51 reads the cubins nvcc 13.0 writes (sm_90, checked
# against the kernels library: tests/kernels/check_resource_usage.py). The wheel (one static binary,
# py3-none-manylinux_2_17) is checked against its sha256 as well as its version.
cuobjdump_version="13.2.51"
cuobjdump_sha256="95c69d3ddf0c2c1f535ec44c3433a66aeee19f588d9d22f73356e20b25f12b50"

python=/usr/bin/python3
[ -x "$python" ] || python="$(command -v python3 || true)"

where() {
  case "$1" in
    cudnn-frontend) echo "$PWD/.deps/cudnn-frontend" ;;
    tools) echo "$PWD/.deps/pytools" ;;
    cuobjdump) echo "$PWD/.deps/cuobjdump" ;;
    *) echo "pypi-deps: unknown group '$1' (cudnn-frontend, tools, cuobjdump)" >&2; return 2 ;;
  esac
}

offline() {
  echo "pypi-deps: offline: $1 not fetched ($2)" >&2
  exit 3
}

# pip's last meaningful line, for the offline message.
pip_reason() { grep -E 'ERROR|error|Could not|No matching|Failed' "$1" | tail -1 | cut -c1-200; }

# Network failures read as 'offline'; anything else (a wrong pin, a full disk) is an error.
fail_or_offline() {
  local group="$1" log="$2" why
  why="$(pip_reason "$log")"
  if grep -qiE 'connection|network|resolve|timed out|temporary failure|Name or service|No matching distribution|Could not find a version' "$log"; then
    offline "$group" "${why:-PyPI unreachable}"
  fi
  echo "pypi-deps: $group: pip failed: ${why:-see $log}" >&2
  exit 1
}

need_pip() {
  [ -n "$python" ] || offline "$1" "no python3"
  "$python" -m pip --version >/dev/null 2>&1 || offline "$1" "no pip for $python (Debian: python3-pip)"
}

# download_wheel PLATFORM: the one wheel of $want for that platform (a cp311 one, asked for by name
# so the download does not depend on the local Python) into a temporary folder; sets $wheel.
download_wheel() {
  need_pip "$group"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  if ! timeout 300 "$python" -m pip download --no-deps --only-binary=:all: --python-version 3.11 \
    --platform "$1" -d "$tmp" "$want" >"$tmp/pip.log" 2>&1; then
    fail_or_offline "$group" "$tmp/pip.log"
  fi
  wheel="$(ls "$tmp"/*.whl)"
}

group="${1:-}"
if [ "$group" = "--where" ]; then
  where "${2:-}"
  exit $?
fi
dest="$(where "$group")" || exit 2
stamp="$dest/.pypi-deps"

case "$group" in
  cudnn-frontend)
    want="nvidia-cudnn-frontend==$cudnn_frontend_version"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$dest/include/cudnn_frontend.h" ]; then
      exit 0
    fi
    download_wheel manylinux_2_28_x86_64
    rm -rf "$dest"
    mkdir -p "$dest"
    # Only the headers: the wheel's top-level include/ (cudnn_frontend.h, cudnn_frontend/...).
    "$python" - "$wheel" "$dest" <<'PY'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.startswith("include/") and not n.endswith("/")]
    if not any(n == "include/cudnn_frontend.h" for n in names):
        sys.exit("pypi-deps: the wheel holds no include/cudnn_frontend.h")
    for n in names:
        z.extract(n, dest)
PY
    echo "$want" >"$stamp"
    echo "pypi-deps: cudnn-frontend $cudnn_frontend_version headers in ${dest#"$PWD"/}/include"
    ;;
  tools)
    want="${tools_requirements[*]}"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
      exit 0
    fi
    need_pip "$group"
    log="$(mktemp)"
    trap 'rm -f "$log"' EXIT
    rm -rf "$dest"
    if ! timeout 900 "$python" -m pip install --no-input --disable-pip-version-check --target "$dest" \
      "${tools_requirements[@]}" >"$log" 2>&1; then
      rm -rf "$dest"
      fail_or_offline "$group" "$log"
    fi
    echo "$want" >"$stamp"
    echo "pypi-deps: tools (${want}) in ${dest#"$PWD"/}"
    ;;
  cuobjdump)
    want="nvidia-cuda-cuobjdump==$cuobjdump_version"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$dest/bin/cuobjdump" ]; then
      exit 0
    fi
    # The wheel's own tag (pip 23 does not take an older manylinux for a newer --platform).
    download_wheel manylinux_2_17_x86_64
    if [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$cuobjdump_sha256" ]; then
      echo "pypi-deps: cuobjdump: $(basename "$wheel") does not match its pinned sha256" >&2
      exit 1
    fi
    rm -rf "$dest"
    mkdir -p "$dest/bin"
    # The binary and its licence; the wheel's Python package around them is nothing ringbench needs.
    "$python" - "$wheel" "$dest" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    if "nvidia/cu13/bin/cuobjdump" not in names:
        sys.exit("pypi-deps: the wheel holds no nvidia/cu13/bin/cuobjdump")
    with open(os.path.join(dest, "bin", "cuobjdump"), "wb") as f:
        f.write(z.read("nvidia/cu13/bin/cuobjdump"))
    os.chmod(os.path.join(dest, "bin", "cuobjdump"), 0o755)
    for n in names:
        if n.endswith("/License.txt"):
            with open(os.path.join(dest, "License.txt"), "wb") as f:
                f.write(z.read(n))
PY
    echo "$want" >"$stamp"
    echo "pypi-deps: cuobjdump $cuobjdump_version in ${dest#"$PWD"/}/bin"
    ;;
esac
