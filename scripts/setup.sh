#!/usr/bin/env bash
# Installs what ringbench needs on a fresh Debian 12 machine, and nothing that is already there.
#   bash scripts/setup.sh           everything the tests need (the test command calls this)
#   bash scripts/setup.sh --build   only what building the ringbench binary needs (the main job
#                                   calls this, and only when configuring failed)
# CUDA (nvcc, NCCL, CUPTI, NVTX, cuDNN) is optional and not installed here: it comes with the CUDA
# toolkit at /usr/local/cuda when the machine has one.
# Then, in both modes and whatever Debian's state, what only PyPI has, into the git-ignored .deps/
# (scripts/pypi-deps.sh, pinned; pip from Debian's python3-pip): cuDNN's C++ frontend headers, which
# the cudnn kernel builds against; and, for the tests only, HTA and asv (.deps/pytools) and NVIDIA's
# cuobjdump (.deps/cuobjdump: the kernels' resource-usage test; this toolkit has none). Where PyPI
# cannot be reached it prints pypi-deps' one line and carries on: configure then builds without cuDNN
# and says why, and the tests that need the tools report themselves skipped.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

build_packages=(
  cmake ninja-build g++ pkg-config
  libfmt-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  libopenmpi-dev openmpi-bin
  python3-pip  # scripts/pypi-deps.sh: the cuDNN frontend's headers
)
test_packages=(
  libgtest-dev libgmock-dev libbenchmark-dev libbenchmark-tools
  python3 python3-numpy python3-jsonschema python3-scipy
  clang libclang-rt-14-dev  # libFuzzer, for scripts/fuzz.sh
  chromium  # headless: renders report.html in tests/reports
  clang-format  # scripts/check-format.sh
)
packages=("${build_packages[@]}")
[ "${1:-}" = "--build" ] || packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
else
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# pypi-deps.sh GROUP WHAT-IS-LEFT-OUT: 0 fetched or already there; 3 offline (its one line is on
# stderr): say what goes without and carry on; anything else is an error.
pypi() {
  local rc=0
  bash "$here/pypi-deps.sh" "$1" || rc=$?
  case $rc in
    0) ;;
    3) echo "setup: carrying on without $1: $2" >&2 ;;
    *) echo "setup: scripts/pypi-deps.sh $1 failed (exit $rc)" >&2; exit 1 ;;
  esac
}
pypi cudnn-frontend "configure builds without cuDNN and says why"
[ "${1:-}" = "--build" ] || pypi tools "the tests that compare with HTA and asv report themselves skipped"
[ "${1:-}" = "--build" ] || pypi cuobjdump "the kernels' resource-usage test reports itself skipped"
echo "setup: done"
