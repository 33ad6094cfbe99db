# Finds ringbench's dependencies. Host libraries (fmt, nlohmann/json, CLI11, GoogleTest, Google
# Benchmark) are required and come from Debian (scripts/setup.sh); CUDA, NCCL, CUPTI, NVTX and MPI
# are optional: each is detected, and switched on for the code by a RINGBENCH_HAVE_* definition.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)

set(RINGBENCH_HAVE_CUDA OFF)
set(RINGBENCH_HAVE_NCCL OFF)
set(RINGBENCH_HAVE_CUPTI OFF)
set(RINGBENCH_HAVE_NVTX OFF)
set(RINGBENCH_HAVE_MPI OFF)

if(RINGBENCH_ENABLE_CUDA)
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Hopper (H100/H200) is the target; override with -DCMAKE_CUDA_ARCHITECTURES=...
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc 13's C++20 flag, so it is passed directly (ringbench_options).
    find_package(CUDAToolkit REQUIRED)
    set(RINGBENCH_HAVE_CUDA ON)
  else()
    message(STATUS "ringbench: nvcc not found, building without the CUDA backend")
  endif()
endif()

if(RINGBENCH_HAVE_CUDA AND RINGBENCH_ENABLE_NCCL)
  find_path(RINGBENCH_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME PATH_SUFFIXES include)
  find_library(RINGBENCH_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME PATH_SUFFIXES lib lib64)
  if(RINGBENCH_NCCL_INCLUDE AND RINGBENCH_NCCL_LIBRARY)
    add_library(ringbench_nccl INTERFACE)
    target_include_directories(ringbench_nccl INTERFACE ${RINGBENCH_NCCL_INCLUDE})
    target_link_libraries(ringbench_nccl INTERFACE ${RINGBENCH_NCCL_LIBRARY})
    add_library(ringbench::nccl ALIAS ringbench_nccl)
    set(RINGBENCH_HAVE_NCCL ON)
  endif()
endif()

# ncclCommRevoke (NCCL_REVOKE_DEFAULT) lets the watchdog stop a captured NCCL pass without freeing
# the communicator. It is detected in the header and library that were found, not inferred from the
# version: NCCL 2.28.3 (a stock GPU node's /usr/include) lacks it, 2.28.9 (the CUDA 13 toolkit) has
# it. RINGBENCH_NCCL_REVOKE=OFF builds as if it were absent; RINGBENCH_CHECK_NO_REVOKE compiles the
# transport a second time that way, so a machine with the API also proves the branch without it.
option(RINGBENCH_NCCL_REVOKE "Use ncclCommRevoke where the NCCL found has it" ON)
option(RINGBENCH_CHECK_NO_REVOKE "Also compile the nccl transport as if NCCL had no ncclCommRevoke" OFF)
set(RINGBENCH_HAVE_NCCL_REVOKE OFF)
if(RINGBENCH_HAVE_NCCL)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_INCLUDES ${RINGBENCH_NCCL_INCLUDE} ${CUDAToolkit_INCLUDE_DIRS})
  set(CMAKE_REQUIRED_LIBRARIES ${RINGBENCH_NCCL_LIBRARY} CUDA::cudart)
  set(CMAKE_REQUIRED_QUIET ON)
  # The result is cached under a name that carries the header's path, so pointing the build at
  # another NCCL asks again.
  string(MAKE_C_IDENTIFIER "RINGBENCH_NCCL_REVOKE_IN_${RINGBENCH_NCCL_INCLUDE}" _revoke_var)
  check_cxx_source_compiles([[
#include <nccl.h>
int main() {
  ncclComm_t comm = nullptr;
  return ncclCommRevoke(comm, NCCL_REVOKE_DEFAULT) == ncclSuccess ? 0 : 1;
}]] ${_revoke_var})
  unset(CMAKE_REQUIRED_INCLUDES)
  unset(CMAKE_REQUIRED_LIBRARIES)
  unset(CMAKE_REQUIRED_QUIET)
  if(${_revoke_var} AND RINGBENCH_NCCL_REVOKE)
    set(RINGBENCH_HAVE_NCCL_REVOKE ON)
  endif()
  message(STATUS "ringbench: NCCL at ${RINGBENCH_NCCL_INCLUDE}: ncclCommRevoke "
                 "${${_revoke_var}}, used ${RINGBENCH_HAVE_NCCL_REVOKE}")
endif()

if(RINGBENCH_HAVE_CUDA AND RINGBENCH_ENABLE_CUPTI AND TARGET CUDA::cupti)
  set(RINGBENCH_HAVE_CUPTI ON)
endif()

if(RINGBENCH_ENABLE_NVTX)
  if(RINGBENCH_HAVE_CUDA AND TARGET CUDA::nvtx3)
    set(RINGBENCH_HAVE_NVTX ON)
  else()
    find_path(RINGBENCH_NVTX3_INCLUDE nvtx3/nvToolsExt.h HINTS /usr/local/cuda/include)
    if(RINGBENCH_NVTX3_INCLUDE)
      add_library(ringbench_nvtx3 INTERFACE)
      target_include_directories(ringbench_nvtx3 INTERFACE ${RINGBENCH_NVTX3_INCLUDE})
      target_link_libraries(ringbench_nvtx3 INTERFACE ${CMAKE_DL_LIBS})
      add_library(CUDA::nvtx3 ALIAS ringbench_nvtx3)
      set(RINGBENCH_HAVE_NVTX ON)
    endif()
  endif()
endif()

if(RINGBENCH_ENABLE_MPI)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(RINGBENCH_HAVE_MPI ON)
  endif()
endif()

if(RINGBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(RINGBENCH_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
