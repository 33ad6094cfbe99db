# The CUDA and CUPTI versions ringbench's code needs, decided in one place with the reason for the
# configure summary (included by RingbenchDependencies.cmake; tests/cmake/test_cuda_versions.py runs
# it as a script, `cmake -DCUDA_VERSION=... -DCUPTI_HEADER=... -P`, without a toolkit).
#
# CUDA 13 or newer: the capture queries take CUDA 13's edge-data forms (ring/cuda/cuda_handles.hpp),
# and an older toolkit would fail halfway through the build instead of configuring the CPU backend.
# CUPTI 13 or newer (CUPTI_API_VERSION in cupti_version.h, 130000 for CUDA 13.0): the record
# conversion is written against CUPTI 13's layouts (bench/measure/cupti_records.hpp).

# ringbench_cuda_gate(VERSION WHERE HAVE_VAR SUMMARY_VAR): HAVE_VAR ON or OFF, SUMMARY_VAR "ON (13.0.88)"
# or "OFF (why)".
function(ringbench_cuda_gate version where have_var summary_var)
  if(version VERSION_LESS 13)
    set(${have_var} OFF PARENT_SCOPE)
    set(${summary_var} "OFF (CUDA ${version} at ${where}; ringbench needs CUDA 13)" PARENT_SCOPE)
  else()
    set(${have_var} ON PARENT_SCOPE)
    set(${summary_var} "ON (${version})" PARENT_SCOPE)
  endif()
endfunction()

# ringbench_cupti_gate(HEADER HAVE_VAR SUMMARY_VAR): HEADER is cupti_version.h's path (empty where not
# found).
function(ringbench_cupti_gate header have_var summary_var)
  set(api 0)
  if(header AND EXISTS "${header}")
    file(STRINGS "${header}" line REGEX "^#define CUPTI_API_VERSION [0-9]+")
    string(REGEX MATCH "[0-9]+$" api "${line}")
  endif()
  if(NOT api)
    set(${have_var} OFF PARENT_SCOPE)
    set(${summary_var} "OFF (no CUPTI_API_VERSION in '${header}')" PARENT_SCOPE)
  elseif(api LESS 130000)
    set(${have_var} OFF PARENT_SCOPE)
    set(${summary_var} "OFF (CUPTI API version ${api} at ${header}; ringbench needs 130000, CUDA 13)" PARENT_SCOPE)
  else()
    set(${have_var} ON PARENT_SCOPE)
    set(${summary_var} "ON (${api})" PARENT_SCOPE)
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(DEFINED CUDA_VERSION)
    ringbench_cuda_gate("${CUDA_VERSION}" "/opt/cuda/bin" have summary)
    message("CUDA=${summary}")
  endif()
  if(DEFINED CUPTI_HEADER)
    ringbench_cupti_gate("${CUPTI_HEADER}" have summary)
    message("CUPTI=${summary}")
  endif()
endif()
