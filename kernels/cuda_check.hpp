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

// Errors that corrupt the CUDA context: every later call in this process fails too, so the sweep
// must stop (rb::FatalError) rather than record one failure and go on.
inline bool cuda_error_is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable: return true;
    default: return false;
  }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* file, int line, const char* call) {
  // A failed call leaves its error as the thread's last error too; read it away, or the next
  // RB_CUDA_CHECK_LAUNCH (cudaGetLastError) reports this failure again as its own, and one real
  // failure becomes two configurations failed. A sticky error cannot be cleared, and need not be.
  if (!cuda_error_is_sticky(e)) (void)cudaGetLastError();
  if (cuda_error_is_sticky(e))
    throw FatalError(std::string(file) + ":" + std::to_string(line) + ": CUDA call `" + call +
                     "` failed with a sticky error, the device context is lost: " + cuda_error_text(e));
  throw_api_error("CUDA", file, line, call, cuda_error_text(e));
}

}  // namespace rb::kernels

// RB_CUDA_CHECK(cudaMalloc(&p, n)); throws rb::ApiError unless the call returns cudaSuccess, and
// rb::FatalError for a sticky error (the sweep stops, writing what it has).
#define RB_CUDA_CHECK(call)                                                                                    \
  do {                                                                                                         \
    const cudaError_t rb_cuda_err_ = (call);                                                                   \
    if (rb_cuda_err_ != cudaSuccess) ::rb::kernels::throw_cuda_error(rb_cuda_err_, __FILE__, __LINE__, #call); \
  } while (0)

// After every <<<...>>>: launch-configuration errors (too much shared memory, a bad grid) are only
// reported by cudaGetLastError, never by the launch itself.
#define RB_CUDA_CHECK_LAUNCH() RB_CUDA_CHECK(cudaGetLastError())
