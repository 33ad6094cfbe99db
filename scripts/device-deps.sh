#!/usr/bin/env bash
# Gathers the Debian host libraries ringbench builds against (fmt, nlohmann/json, CLI11, GoogleTest,
# Google Benchmark, zlib) into .deps/ (git-ignored), for a GPU machine that has CUDA, CMake, ninja and
# PyTorch but none of these -dev packages and no network. Run it here, where apt works; carry .deps/
# to the GPU machine; scripts/device-check.sh then configures with CMAKE_PREFIX_PATH=.deps/usr and
# LD_LIBRARY_PATH for the shared ones (libfmt, libbenchmark). Nothing is installed system-wide:
# `apt-get download` fetches .deb files and `dpkg-deb -x` unpacks them under .deps/.
# Usage: bash scripts/device-deps.sh [--check]   (--check: configure against .deps/ only, then stop)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/.deps"

packages=(
  libfmt-dev libfmt9
  nlohmann-json3-dev
  libcli11-dev
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev libbenchmark1debian
  zlib1g-dev
)

if [ "${1:-}" != "--check" ]; then
  rm -rf "$root"
  mkdir -p "$root/debs"
  # apt's sandbox user cannot write into the checkout; download to a temporary folder it can.
  tmp_debs="$(mktemp -d)"
  chmod 777 "$tmp_debs"
  (cd "$tmp_debs" && apt-get download "${packages[@]}" >/dev/null 2>&1)
  mv "$tmp_debs"/*.deb "$root/debs/" && rmdir "$tmp_debs"
  for deb in "$root"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
  rm -rf "$root/debs" "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/src"
  # zlib1g-dev's libz.so points at /lib/...; the runtime libz.so.1 is on every machine, but the
  # link-time symlink must resolve inside .deps/ too.
  libdir="$root/usr/lib/x86_64-linux-gnu"
  if [ -L "$libdir/libz.so" ] && [ ! -e "$libdir/libz.so" ]; then
    ln -sf "$(readlink -f /lib/x86_64-linux-gnu/libz.so.1 || echo /lib/x86_64-linux-gnu/libz.so.1)" "$libdir/libz.so"
  fi
  echo "device-deps: unpacked ${#packages[@]} packages into .deps/ ($(du -sh "$root" | cut -f1))"
fi

# The check: configure with CMake's system search paths switched off, so every find_package of a
# host library must resolve inside .deps/ (CUDA is found from /usr/local/cuda by its own hints).
check_dir="$(mktemp -d)"
trap 'rm -rf "$check_dir"' EXIT
# Tools are named explicitly because PATH is off for every search, programs included.
cmake -S . -B "$check_dir" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF \
  -DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_MAKE_PROGRAM="$(command -v ninja)" -DCMAKE_CXX_COMPILER="$(command -v g++)" \
  -DPython3_EXECUTABLE="$(command -v python3)" -DGIT_EXECUTABLE="$(command -v git)" \
  >"$check_dir/configure.log" 2>&1 ||
  { cat "$check_dir/configure.log"; echo "device-deps: configure against .deps/ failed" >&2; exit 1; }
for v in fmt_DIR nlohmann_json_DIR CLI11_DIR GTest_DIR benchmark_DIR ZLIB_INCLUDE_DIR; do
  val="$(grep -E "^$v:" "$check_dir/CMakeCache.txt" | cut -d= -f2- || true)"
  case "$val" in
    "$root"/*) echo "device-deps: $v = ${val#"$PWD"/}" ;;
    *) echo "device-deps: $v resolved outside .deps/: '$val'" >&2; exit 1 ;;
  esac
done
echo "device-deps: configure resolves every host library inside .deps/"
