// Shared by the CUDA micro-benchmarks: skip with an error where there is no device, and time one
// enqueue with CUDA events for UseManualTime.
#pragma once

#include <benchmark/benchmark.h>

#include <cuda_runtime_api.h>

#include "kernels/cuda_check.hpp"
#include "ring/cuda/cuda_handles.hpp"
#include "ring/cuda/executor_cuda.hpp"

namespace rb::micro {

// Returns false (after SkipWithError) when no CUDA device is usable; the loop must not run then.
inline bool require_gpu(benchmark::State& state) {
  if (ring::cuda_device_available()) return true;
  cudaGetLastError();
  state.SkipWithError("no CUDA device");
  return false;
}

// Seconds the work enqueued by f on `s` took on the GPU, between two events around it.
template <typename F>
double time_on_gpu(cudaStream_t s, F&& f) {
  static thread_local ring::CudaEvent a = ring::make_event(true), b = ring::make_event(true);
  RB_CUDA_CHECK(cudaEventRecord(a.get(), s));
  f();
  RB_CUDA_CHECK(cudaEventRecord(b.get(), s));
  RB_CUDA_CHECK(cudaEventSynchronize(b.get()));
  float ms = 0;
  RB_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace rb::micro
