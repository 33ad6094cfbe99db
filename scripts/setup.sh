#!/usr/bin/env bash
# Installs what ringbench needs on a fresh Debian 12 machine, and nothing that is already there.
#   bash scripts/setup.sh           everything the tests need (the test command calls this)
#   bash scripts/setup.sh --build   only what building the ringbench binary needs (the main job
#                                   calls this, and only when configuring failed)
# CUDA (nvcc, NCCL, CUPTI, NVTX) is optional and not installed here: it comes with the CUDA toolkit
# at /usr/local/cuda when the machine has one.
set -euo pipefail

build_packages=(
  cmake ninja-build g++ pkg-config
  libfmt-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  libopenmpi-dev openmpi-bin
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
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
