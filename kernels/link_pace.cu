// Stamp and pace kernels of the link model (see link_pace.cuh).
#include "kernels/link_pace.cuh"

#include "kernels/cuda_check.hpp"

namespace rb::kernels {
namespace {

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void stamp_kernel(std::uint64_t* slot) { *slot = global_ns(); }

__global__ void pace_kernel(const std::uint64_t* slot, std::int64_t ns) {
  const std::uint64_t until = *slot + static_cast<std::uint64_t>(ns);
  while (global_ns() < until) __nanosleep(256);
}

}  // namespace

void link_stamp(std::uint64_t* slot, cudaStream_t stream) {
  stamp_kernel<<<1, 1, 0, stream>>>(slot);
  RB_CUDA_CHECK_LAUNCH();
}

void link_pace(const std::uint64_t* slot, std::int64_t ns, cudaStream_t stream) {
  pace_kernel<<<1, 1, 0, stream>>>(slot, ns);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace rb::kernels
