// CPU twin of the clock probe (kernels/clock_probe.cuh): the steady clock stands in for
// %globaltimer and the time-stamp counter for clock64. On x86 that counter runs at a fixed rate,
// whatever the core's clock, so the twin checks the stamps and the arithmetic, not a CPU's speed;
// the CPU backend records no per-sample clock.
#pragma once

#include "kernels/clock_stamp.hpp"

namespace rb::kernels::ref {

struct ClockProbeParams {
  ClockStamp* out = nullptr;
};

// Throws rb::Error on a null stamp.
void clock_probe(const ClockProbeParams& p);

}  // namespace rb::kernels::ref
