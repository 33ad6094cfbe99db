#!/usr/bin/env bash
# Gathers the Debian host libraries ringbench builds against (fmt, nlohmann/json, CLI11, GoogleTest,
# Google Benchmark, zlib) into .deps/ (git-ignored), for a GPU machine that has CUDA, CMake, ninja and
# PyTorch but none of these -dev packages and no network. Run it here, where apt works; carry .deps/
# to the GPU machine; scripts/device-check.sh then configures with CMAKE_PREFIX_PATH=.deps/usr and
# LD_LIBRARY_PATH for the shared ones (libfmt, libbenchmark). Nothing is installed system-wide:
# `apt-get download` fetches .deb files and `dpkg-deb -x` unpacks them under .deps/.
# It also carries Open MPI's C headers (Debian 12's libopenmpi-dev, 4.1.4) into .deps/openmpi/include,
# and nothing else of that package: a node with Open MPI 4.1.x's mpirun and runtime (libmpi.so.40,
# one ABI across 4.1.x) but no headers builds the mpi and nccl transports against them and links its
# own libmpi (device-check.sh decides). Debian's libmpi is left behind on purpose: linked beside the
# node's mpirun and its plugins it would put two builds of Open MPI in one job.
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
  # Open MPI: the headers only, outside .deps/usr so no search by prefix ever finds them by accident.
  # The C++ bindings' headers stay behind too: device-check.sh configures with MPI_CXX_SKIP_MPICXX.
  tmp_mpi="$(mktemp -d)"
  chmod 777 "$tmp_mpi"
  (cd "$tmp_mpi" && apt-get download libopenmpi-dev >/dev/null 2>&1)
  dpkg-deb -x "$tmp_mpi"/libopenmpi-dev_*.deb "$tmp_mpi/x"
  src="$tmp_mpi/x/usr/lib/x86_64-linux-gnu/openmpi/include"
  mkdir -p "$root/openmpi/include/openmpi"
  cp "$src/mpi.h" "$src/mpi-ext.h" "$src/mpi_portable_platform.h" "$root/openmpi/include/"
  cp -r "$src/openmpi/mpiext" "$root/openmpi/include/openmpi/"
  rm -rf "$tmp_mpi"
  echo "device-deps: unpacked ${#packages[@]} packages into .deps/ ($(du -sh "$root" | cut -f1)), and Open MPI" \
    "$(sed -n 's/^#define OMPI_\(MAJOR\|MINOR\|RELEASE\)_VERSION //p' "$root/openmpi/include/mpi.h" | paste -sd.)'s headers"
fi

# The check: configure with CMake's system search paths switched off, so every find_package of a
# host library must resolve inside .deps/ (CUDA is found from /usr/local/cuda by its own hints).
check_dir="$(mktemp -d)"
trap 'rm -rf "$check_dir"' EXIT
# MPI as device-check.sh configures it on a node without headers: its flags, the carried headers,
# and this machine's libmpi.so.40 standing in for the node's.
[ -f "$root/openmpi/include/mpi.h" ] ||
  { echo "device-deps: .deps/openmpi/include/mpi.h is missing: run without --check first" >&2; exit 1; }
mapfile -t mpi_args < <(RINGBENCH_MPI_HEADERS=carried bash scripts/device-check.sh --mpi-args 2>"$check_dir/mpi.txt")
[ ${#mpi_args[@]} -gt 0 ] || echo "device-deps: the carried Open MPI headers go unchecked here ($(cat "$check_dir/mpi.txt"))" >&2
# Tools are named explicitly because PATH is off for every search, programs included.
cmake -S . -B "$check_dir" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF \
  -DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_MAKE_PROGRAM="$(command -v ninja)" -DCMAKE_CXX_COMPILER="$(command -v g++)" \
  -DPython3_EXECUTABLE="$(command -v python3)" -DGIT_EXECUTABLE="$(command -v git)" "${mpi_args[@]}" \
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
if [ ${#mpi_args[@]} -gt 0 ]; then
  grep -qE '^-- ringbench .* MPI=ON' "$check_dir/configure.log" ||
    { grep -iE 'mpi' "$check_dir/configure.log" >&2; echo "device-deps: MPI not found with the carried headers" >&2; exit 1; }
  echo "device-deps: MPI found with the carried headers ($(grep -E '^MPI_CXX_HEADER_DIR:' "$check_dir/CMakeCache.txt" |
    cut -d= -f2- | sed "s|^$PWD/||")) and $(grep -E '^MPI_mpi_LIBRARY:' "$check_dir/CMakeCache.txt" | cut -d= -f2-)"
fi
