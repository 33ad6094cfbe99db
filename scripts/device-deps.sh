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
# For the cudnn kernel it carries cuDNN's headers (this machine's, into .deps/cudnn/include) and keeps
# cudnn-frontend's (.deps/cudnn-frontend, fetching them if missing: scripts/pypi-deps.sh): a node whose
# cuDNN is only a PyTorch wheel's copy, without headers, builds against these and opens its own
# library at run time, older or not (cmake/RingbenchDependencies.cmake, version skew); the node's own
# headers win where it has them. What pypi-deps.sh installed (.deps/cudnn-frontend, .deps/pytools,
# .deps/cuobjdump) is kept; everything else under .deps/ is made again. The GPU node needs .deps/usr,
# .deps/openmpi, .deps/cudnn and .deps/cudnn-frontend, not .deps/pytools (the test tools, hundreds
# of MB).
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
  mkdir -p "$root"
  find "$root" -mindepth 1 -maxdepth 1 ! -name cudnn-frontend ! -name pytools ! -name cuobjdump -exec rm -rf {} +
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
  echo "device-deps: unpacked ${#packages[@]} packages into .deps/ ($(du -sh --exclude=pytools "$root" | cut -f1)" \
    "without pytools), and Open MPI" \
    "$(sed -n 's/^#define OMPI_\(MAJOR\|MINOR\|RELEASE\)_VERSION //p' "$root/openmpi/include/mpi.h" | paste -sd.)'s headers"
  # cuDNN's headers, where this machine has them.
  for d in "${CUDNN_PATH:-}" /usr/local/cuda /usr; do
    { [ -n "$d" ] && [ -f "$d/include/cudnn_version.h" ]; } || continue
    mkdir -p "$root/cudnn/include"
    cp -L "$d"/include/cudnn*.h "$root/cudnn/include/"
    echo "device-deps: cuDNN $(sed -n 's/^#define CUDNN_\(MAJOR\|MINOR\|PATCHLEVEL\) *//p' \
      "$root/cudnn/include/cudnn_version.h" | paste -sd.)'s headers from $d/include into .deps/cudnn/include"
    break
  done
  [ -d "$root/cudnn" ] || echo "device-deps: this machine has no cuDNN headers to carry" >&2
  rc=0
  bash scripts/pypi-deps.sh cudnn-frontend || rc=$?
  if [ $rc -eq 3 ]; then
    echo "device-deps: carrying no cuDNN frontend headers: the node builds without the cudnn kernel" >&2
  elif [ $rc -ne 0 ]; then
    exit 1
  fi
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
# cuDNN from the carried headers, as on a node without its own (the library is this machine's).
cudnn_args=()
[ -f "$root/cudnn/include/cudnn_version.h" ] && cudnn_args=(-DRINGBENCH_CUDNN_ROOT="$root/cudnn")
cmake -S . -B "$check_dir" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF \
  -DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_MAKE_PROGRAM="$(command -v ninja)" -DCMAKE_CXX_COMPILER="$(command -v g++)" \
  -DPython3_EXECUTABLE="$(command -v python3)" -DGIT_EXECUTABLE="$(command -v git)" "${mpi_args[@]}" \
  "${cudnn_args[@]}" \
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
# cuDNN: ON from the carried headers and frontend where this machine has cuDNN (and PyPI was
# reachable for the frontend); otherwise configure's reason, which is no failure of this check.
summary="$(grep -E '^-- ringbench [0-9]' "$check_dir/configure.log" | sed 's/.* cuDNN=/cuDNN=/')"
if [ ${#cudnn_args[@]} -gt 0 ] && [ -f "$root/cudnn-frontend/include/cudnn_frontend.h" ]; then
  case "$summary" in
    cuDNN=ON*) ;;
    *) grep -iE 'cudnn' "$check_dir/configure.log" >&2; echo "device-deps: $summary with the carried headers" >&2; exit 1 ;;
  esac
  echo "device-deps: $summary with the carried headers ($(grep -E '^RINGBENCH_CUDNN_INCLUDE:' "$check_dir/CMakeCache.txt" |
    cut -d= -f2- | sed "s|^$PWD/||")) and the frontend's ($(grep -E '^RINGBENCH_CUDNN_FRONTEND_INCLUDE:' \
    "$check_dir/CMakeCache.txt" | cut -d= -f2- | sed "s|^$PWD/||"))"
else
  echo "device-deps: $summary (carried: cuDNN headers $([ ${#cudnn_args[@]} -gt 0 ] && echo yes || echo no)," \
    "frontend headers $([ -f "$root/cudnn-frontend/include/cudnn_frontend.h" ] && echo yes || echo no))"
fi
