// The clock probe kernel (see clock_probe.cuh).
#include "kernels/clock_probe.cuh"

#include <cassert>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/ptx_primitives.cuh"

namespace rb::kernels {
namespace {

// Grid: one CTA of one thread.
__global__ void clock_probe_kernel(const ClockProbeParams p) {
  // Preconditions, checked by the launcher: one thread; out in device memory.
  assert(blockDim.x == 1 && gridDim.x == 1);
  // The timer first: clock64 then counts any cycles spent reading it, never the other way round.
  const std::uint64_t ns = ptx::global_timer_ns();
  const auto cycles = static_cast<std::uint64_t>(clock64());
  p.out->ns = ns;
  p.out->cycles = cycles;
}

}  // namespace

void clock_probe(const ClockProbeParams& p, cudaStream_t stream) {
  if (p.out == nullptr) throw Error("clock_probe (cuda): null stamp");
  clock_probe_kernel<<<1, 1, 0, stream>>>(p);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace rb::kernels
