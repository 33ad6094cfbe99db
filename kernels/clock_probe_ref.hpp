// CPU twin of the clock probe (kernels/clock_probe.cuh): the steady clock stands in for
// %globaltimer and the time-stamp counter for clock64. On x86 that counter runs at a fixed rate,
// whatever the core's clock, so the twin checks the stamps, the one-SM rule and the arithmetic, not
// a CPU's speed; the CPU backend records no per-sample clock.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/clock_stamp.hpp"

namespace rb::kernels::ref {

struct ClockProbeParams {
  ClockStamp* out = nullptr;
  // The SMs the probe's blocks ran on, in the order they ran (the device decides; a test chooses).
  std::vector<std::uint32_t> block_sms{kClockProbeSm};
};

// Throws rb::Error on a null stamp. As on the device, only the first block on kClockProbeSm writes,
// and only into a stamp that no block has claimed yet.
void clock_probe(const ClockProbeParams& p);

}  // namespace rb::kernels::ref
