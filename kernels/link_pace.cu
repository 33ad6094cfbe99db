// Pace kernel of the link model (see link_pace.cuh).
#include "kernels/link_pace.cuh"

#include "kernels/cuda_check.hpp"
#include "kernels/ptx_primitives.cuh"

namespace rb::kernels {
namespace {

// Grid: one thread. The copy before it on the stream has written the stamp's start.
__global__ void pace_kernel(ExecStamp* stamp, std::int64_t ns) {
  const std::uint64_t until = stamp_begin(*stamp) + static_cast<std::uint64_t>(ns);
  std::uint64_t now = ptx::global_timer_ns();
  while (now < until) {
    __nanosleep(256);
    now = ptx::global_timer_ns();
  }
  atomicMax(reinterpret_cast<unsigned long long*>(&stamp->end), static_cast<unsigned long long>(now));
}

}  // namespace

void link_pace(ExecStamp* stamp, std::int64_t ns, cudaStream_t stream) {
  pace_kernel<<<1, 1, 0, stream>>>(stamp, ns);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace rb::kernels
