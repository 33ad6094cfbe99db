// Check macros for the CUDA runtime: every call and every kernel launch goes through one of these,
// so a failure surfaces as rb::ApiError naming file:line, the call text and CUDA's error name and
// message, where it happened rather than at the next synchronisation.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "common/error.hpp"

namespace rb::kernels {

inline std::string cuda_error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

}  // namespace rb::kernels

// RB_CUDA_CHECK(cudaMalloc(&p, n)); throws rb::ApiError unless the call returns cudaSuccess.
#define RB_CUDA_CHECK(call)                                                                  \
  do {                                                                                       \
    const cudaError_t rb_cuda_err_ = (call);                                                 \
    RB_CHECK_API("CUDA", rb_cuda_err_ == cudaSuccess, #call,                                 \
                 ::rb::kernels::cuda_error_text(rb_cuda_err_));                              \
  } while (0)

// After every <<<...>>>: launch-configuration errors (too much shared memory, a bad grid) are only
// reported by cudaGetLastError, never by the launch itself.
#define RB_CUDA_CHECK_LAUNCH() RB_CUDA_CHECK(cudaGetLastError())
