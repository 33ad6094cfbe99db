// The emulated clock probe launcher (kernels/clock_probe.cuh): the device launcher's checks, then
// the twin (ref::clock_probe) with the launch's `blocks` single-thread blocks, block b on SM b: one
// block per SM as SampleClock launches it, so the block on kClockProbeSm, the first, writes the
// stamp (unless the stamp was already claimed). The GPU decides which SM a block lands on and may
// give kClockProbeSm none of them (the stamp then stays unwritten); the emulation always gives it
// block 0. The stamp's ns come from the steady clock that stands in for %globaltimer, its cycles
// from the time-stamp counter (see kernels/clock_probe_ref.hpp). The stamp is read and written (the
// claim is a compare-and-swap).
#include <cstdint>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "emu/kernels/launcher_support.hpp"
#include "kernels/clock_probe.cuh"
#include "kernels/clock_probe_ref.hpp"
#include "kernels/cuda_check.hpp"

namespace rb::kernels {

void clock_probe(const ClockProbeParams& p, cudaStream_t stream) {
  // The checks of kernels/clock_probe.cu, with its messages.
  if (p.out == nullptr) throw Error("clock_probe (cuda): null stamp");
  if (p.blocks < 1) throw Error("clock_probe (cuda): needs at least one block");
  ClockStamp* out = p.out;
  const int blocks = p.blocks;
  auto work = [out, blocks] {
    ref::ClockProbeParams rp;
    rp.out = out;
    rp.block_sms.resize(static_cast<std::size_t>(blocks));
    for (int b = 0; b < blocks; ++b) rp.block_sms[static_cast<std::size_t>(b)] = static_cast<std::uint32_t>(b);
    ref::clock_probe(rp);
  };
  RB_CUDA_CHECK(emu::launch(stream, "clock_probe",
                            {emu::reads(out, sizeof(ClockStamp)), emu::writes(out, sizeof(ClockStamp))}, work));
}

}  // namespace rb::kernels
