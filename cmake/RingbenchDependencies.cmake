# Finds ringbench's dependencies. Host libraries (fmt, nlohmann/json, CLI11, GoogleTest, Google
# Benchmark) are required and come from Debian (scripts/setup.sh); CUDA, NCCL, CUPTI, NVTX, MPI and
# cuDNN (with its C++ frontend from PyPI, scripts/pypi-deps.sh) are optional: each is detected, and
# switched on for the code by a RINGBENCH_HAVE_* definition.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)

include(RingbenchCudaVersions)
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
    ringbench_cuda_gate("${CUDAToolkit_VERSION}" "${CUDAToolkit_BIN_DIR}" RINGBENCH_HAVE_CUDA RINGBENCH_CUDA_SUMMARY)
    if(NOT RINGBENCH_HAVE_CUDA)
      message(STATUS "ringbench: building without the CUDA backend: ${RINGBENCH_CUDA_SUMMARY}")
    else()
      # The CUDA runtime host code calls: libcudart, or the emulated device (emu/) for an executable
      # whose RINGBENCH_EMULATED_DEVICE property is set (ringbench-emu, the `emulated` tests). The
      # property is read on the executable being linked, so one set of objects serves both.
      add_library(ringbench_cuda_runtime INTERFACE)
      add_library(ringbench::cuda_runtime ALIAS ringbench_cuda_runtime)
      target_include_directories(ringbench_cuda_runtime SYSTEM INTERFACE ${CUDAToolkit_INCLUDE_DIRS})
      target_link_libraries(ringbench_cuda_runtime INTERFACE
        "$<IF:$<BOOL:$<TARGET_PROPERTY:RINGBENCH_EMULATED_DEVICE>>,ringbench_emu_runtime,CUDA::cudart>")
    endif()
  else()
    set(RINGBENCH_CUDA_SUMMARY "OFF (nvcc not found)")
    message(STATUS "ringbench: nvcc not found, building without the CUDA backend")
  endif()
else()
  set(RINGBENCH_CUDA_SUMMARY "OFF (disabled)")
endif()

if(RINGBENCH_HAVE_CUDA AND RINGBENCH_ENABLE_NCCL)
  find_path(RINGBENCH_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME PATH_SUFFIXES include)
  find_library(RINGBENCH_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME PATH_SUFFIXES lib lib64)
  if(RINGBENCH_NCCL_INCLUDE AND RINGBENCH_NCCL_LIBRARY)
    add_library(ringbench_nccl INTERFACE)
    target_include_directories(ringbench_nccl INTERFACE ${RINGBENCH_NCCL_INCLUDE})
    # libnccl, or on the emulated device its NCCL over MPI (emu/nccl/, which adds itself here).
    target_link_libraries(ringbench_nccl INTERFACE
      "$<$<NOT:$<BOOL:$<TARGET_PROPERTY:RINGBENCH_EMULATED_DEVICE>>>:${RINGBENCH_NCCL_LIBRARY}>")
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

if(NOT RINGBENCH_ENABLE_CUPTI)
  set(RINGBENCH_CUPTI_SUMMARY "OFF (disabled)")
elseif(NOT RINGBENCH_HAVE_CUDA)
  set(RINGBENCH_CUPTI_SUMMARY "OFF (no CUDA)")
elseif(NOT TARGET CUDA::cupti)
  set(RINGBENCH_CUPTI_SUMMARY "OFF (CUPTI not found)")
else()
  find_file(RINGBENCH_CUPTI_VERSION_H cupti_version.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
            ${CUDAToolkit_TARGET_DIR}/extras/CUPTI/include NO_DEFAULT_PATH)
  ringbench_cupti_gate("${RINGBENCH_CUPTI_VERSION_H}" RINGBENCH_HAVE_CUPTI RINGBENCH_CUPTI_SUMMARY)
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

# cuDNN's fused attention, through cudnn-frontend (NVIDIA's header-only C++ graph API, MIT; the
# headers come from the nvidia-cudnn-frontend wheel: bash scripts/pypi-deps.sh cudnn-frontend, into
# .deps/cudnn-frontend/include, or RINGBENCH_CUDNN_FRONTEND_DIR). Needs CUDA, cuDNN's headers
# (cudnn_version.h) and its library (libcudnn.so.9); the result is RINGBENCH_HAVE_CUDNN and the
# INTERFACE target ringbench::cudnn, which defines RINGBENCH_HAVE_CUDNN for its users and carries
# both sets of headers as system includes (some frontend versions trip -Wshadow under -Werror).
#
# Version skew: cuDNN does not promise that a binary built against newer headers runs on an older
# library, and the GPU node's cuDNN (9.14, perhaps only PyTorch's wheel copy, without headers) is
# older than this machine's (9.19). So the frontend is built with NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING,
# as its own Python module and TransformerEngine are: nothing links libcudnn; the binary opens
# libcudnn.so.9 at run time (kernels/cudnn_library.cpp: $RINGBENCH_CUDNN_LIBRARY, then the loader's
# search path, then the library found here) and the frontend asks that library for its version
# (cudnnGetVersion) before using anything newer, taking min(headers, library) where both matter.
# A build therefore starts on a machine with no cuDNN at all (the cudnn kernel is then refused with
# the reason), and a node without headers builds against carried ones (scripts/device-deps.sh,
# .deps/cudnn/include) and runs on its own library. The headers are searched in RINGBENCH_CUDNN_ROOT,
# $CUDNN_PATH, $CUDNN_HOME, the CUDA toolkit, the system, the Python wheel's nvidia/cudnn, then
# .deps/cudnn; the library beside them first.
set(RINGBENCH_CUDNN_ROOT "" CACHE PATH "A cuDNN installation (include/, lib/) to prefer")
set(RINGBENCH_CUDNN_FRONTEND_DIR "" CACHE PATH
    "cudnn-frontend's include folder (default: .deps/cudnn-frontend/include, scripts/pypi-deps.sh)")
set(RINGBENCH_CUDNN_FRONTEND_MIN 1.25)
set(RINGBENCH_HAVE_CUDNN OFF)
# A cached search result is searched again when its file is gone (a removed .deps/) or when it lies
# outside a folder the user has named since (RINGBENCH_CUDNN_ROOT, RINGBENCH_CUDNN_FRONTEND_DIR).
macro(ringbench_research var file preferred)
  if(${var} AND NOT EXISTS "${${var}}/${file}")
    unset(${var} CACHE)
  elseif(${var} AND NOT "${preferred}" STREQUAL "")
    string(FIND "${${var}}" "${preferred}" _at)
    if(NOT _at EQUAL 0)
      unset(${var} CACHE)
    endif()
  endif()
endmacro()
# MAJOR.MINOR.PATCH from three #defines of a header.
function(ringbench_header_version out header major minor patch)
  file(STRINGS "${header}" lines REGEX "^#define (${major}|${minor}|${patch}) +[0-9]+")
  set(v "")
  foreach(name ${major} ${minor} ${patch})
    foreach(line ${lines})
      if(line MATCHES "^#define ${name} +([0-9]+)")
        list(APPEND v ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endforeach()
  list(JOIN v "." v)
  set(${out} "${v}" PARENT_SCOPE)
endfunction()
if(NOT RINGBENCH_ENABLE_CUDNN)
  set(RINGBENCH_CUDNN_SUMMARY "OFF (disabled)")
elseif(NOT RINGBENCH_HAVE_CUDA)
  set(RINGBENCH_CUDNN_SUMMARY "OFF (no CUDA)")
else()
  # PyTorch's wheel copy (site-packages/nvidia/cudnn: include/ where the wheel has it, lib/).
  set(_cudnn_wheel "")
  set(_py "${Python3_EXECUTABLE}")
  if(NOT _py)
    find_program(RINGBENCH_CUDNN_PYTHON NAMES python3)
    set(_py "${RINGBENCH_CUDNN_PYTHON}")
  endif()
  if(_py)
    execute_process(COMMAND "${_py}" -c "import nvidia.cudnn as m; print(list(m.__path__)[0])"
                    OUTPUT_VARIABLE _cudnn_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET TIMEOUT 30)
  endif()
  ringbench_research(RINGBENCH_CUDNN_INCLUDE cudnn_version.h "${RINGBENCH_CUDNN_ROOT}")
  find_path(RINGBENCH_CUDNN_INCLUDE cudnn_version.h
    HINTS ${RINGBENCH_CUDNN_ROOT} ENV CUDNN_PATH ENV CUDNN_HOME ${CUDAToolkit_INCLUDE_DIRS}
    PATHS ${_cudnn_wheel} ${PROJECT_SOURCE_DIR}/.deps/cudnn
    PATH_SUFFIXES include)
  if(RINGBENCH_CUDNN_LIBRARY AND NOT EXISTS "${RINGBENCH_CUDNN_LIBRARY}")
    unset(RINGBENCH_CUDNN_LIBRARY CACHE)
  endif()
  # libcudnn.so.9 by name too: a wheel has no unversioned libcudnn.so.
  find_library(RINGBENCH_CUDNN_LIBRARY NAMES cudnn libcudnn.so.9
    HINTS ${RINGBENCH_CUDNN_ROOT} ENV CUDNN_PATH ENV CUDNN_HOME ${RINGBENCH_CUDNN_INCLUDE}/..
          ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}
    PATHS ${_cudnn_wheel}
    PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
  ringbench_research(RINGBENCH_CUDNN_FRONTEND_INCLUDE cudnn_frontend.h "${RINGBENCH_CUDNN_FRONTEND_DIR}")
  find_path(RINGBENCH_CUDNN_FRONTEND_INCLUDE cudnn_frontend.h
    HINTS ${RINGBENCH_CUDNN_FRONTEND_DIR} ${PROJECT_SOURCE_DIR}/.deps/cudnn-frontend/include)
  set(_fe_version "")
  if(RINGBENCH_CUDNN_FRONTEND_INCLUDE AND EXISTS "${RINGBENCH_CUDNN_FRONTEND_INCLUDE}/cudnn_frontend_version.h")
    ringbench_header_version(_fe_version "${RINGBENCH_CUDNN_FRONTEND_INCLUDE}/cudnn_frontend_version.h"
      CUDNN_FRONTEND_MAJOR_VERSION CUDNN_FRONTEND_MINOR_VERSION CUDNN_FRONTEND_PATCH_VERSION)
  endif()
  if(NOT RINGBENCH_CUDNN_INCLUDE)
    set(RINGBENCH_CUDNN_SUMMARY "OFF (cuDNN not found: no cudnn_version.h)")
  elseif(NOT RINGBENCH_CUDNN_LIBRARY)
    set(RINGBENCH_CUDNN_SUMMARY "OFF (cuDNN not found: no libcudnn.so.9)")
  else()
    ringbench_header_version(RINGBENCH_CUDNN_VERSION "${RINGBENCH_CUDNN_INCLUDE}/cudnn_version.h"
      CUDNN_MAJOR CUDNN_MINOR CUDNN_PATCHLEVEL)
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" _cudnn_mm "${RINGBENCH_CUDNN_VERSION}")
    if(RINGBENCH_CUDNN_VERSION VERSION_LESS 9)
      set(RINGBENCH_CUDNN_SUMMARY "OFF (cuDNN ${RINGBENCH_CUDNN_VERSION} is older than 9)")
    elseif(NOT RINGBENCH_CUDNN_FRONTEND_INCLUDE)
      set(RINGBENCH_CUDNN_SUMMARY
          "OFF (frontend headers not found: run bash scripts/pypi-deps.sh cudnn-frontend)")
    elseif(NOT _fe_version OR _fe_version VERSION_LESS RINGBENCH_CUDNN_FRONTEND_MIN)
      set(RINGBENCH_CUDNN_SUMMARY "OFF (frontend ${_fe_version} at ${RINGBENCH_CUDNN_FRONTEND_INCLUDE} is older than "
                                  "${RINGBENCH_CUDNN_FRONTEND_MIN}: run bash scripts/pypi-deps.sh cudnn-frontend)")
    else()
      set(RINGBENCH_HAVE_CUDNN ON)
      set(RINGBENCH_CUDNN_FRONTEND_VERSION "${_fe_version}")
      set(RINGBENCH_CUDNN_SUMMARY "ON (${_cudnn_mm}, frontend ${_fe_version})")
      add_library(ringbench_cudnn INTERFACE)
      target_include_directories(ringbench_cudnn SYSTEM INTERFACE ${RINGBENCH_CUDNN_FRONTEND_INCLUDE}
                                                                   ${RINGBENCH_CUDNN_INCLUDE})
      target_compile_definitions(ringbench_cudnn INTERFACE RINGBENCH_HAVE_CUDNN NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING)
      # No libcudnn here (see above): kernels/ adds the loader, ringbench_cudnn_library, which opens it.
      target_link_libraries(ringbench_cudnn INTERFACE ringbench::cuda_runtime ${CMAKE_DL_LIBS})
      add_library(ringbench::cudnn ALIAS ringbench_cudnn)
      message(STATUS "ringbench: cuDNN ${RINGBENCH_CUDNN_VERSION} headers at ${RINGBENCH_CUDNN_INCLUDE}, library "
                     "${RINGBENCH_CUDNN_LIBRARY} (opened at run time); frontend ${_fe_version} at "
                     "${RINGBENCH_CUDNN_FRONTEND_INCLUDE}")
    endif()
  endif()
endif()
# Why not, for tests that report themselves skipped in a build without it.
string(REGEX REPLACE "^OFF \\((.*)\\)$" "\\1" RINGBENCH_CUDNN_OFF_REASON "${RINGBENCH_CUDNN_SUMMARY}")

if(RINGBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(RINGBENCH_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
