// The clock probe kernel (see clock_probe.cuh).
#include "kernels/clock_probe.cuh"

#include <cassert>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/ptx_primitives.cuh"

namespace rb::kernels {
namespace {

// Grid: `blocks` CTAs of one thread, about one per SM; only one on kClockProbeSm writes.
__global__ void clock_probe_kernel(const ClockProbeParams p) {
  // Preconditions, checked by the launcher: one thread per block; out in device memory with
  // out->sm == kNoSm.
  assert(blockDim.x == 1);
  const std::uint32_t sm = ptx::sm_id();
  if (!clock_probe_writes(sm)) return;
  // The timer first: clock64 then counts any cycles spent reading it, never the other way round.
  const std::uint64_t ns = ptx::global_timer_ns();
  const auto cycles = static_cast<std::uint64_t>(clock64());
  // Two blocks may share the SM: the first to claim the stamp writes it, so cycles and ns come from
  // one read.
  if (atomicCAS(&p.out->sm, kNoSm, sm) != kNoSm) return;
  p.out->ns = ns;
  p.out->cycles = cycles;
}

}  // namespace

void clock_probe(const ClockProbeParams& p, cudaStream_t stream) {
  if (p.out == nullptr) throw Error("clock_probe (cuda): null stamp");
  if (p.blocks < 1) throw Error("clock_probe (cuda): needs at least one block");
  clock_probe_kernel<<<p.blocks, 1, 0, stream>>>(p);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace rb::kernels
