// What a record says about throttling, for the readers that act on it: compare (a throttled run is
// NOISY, never SLOWER) and accept (the "not throttled" checks). Two sources: gpu_state, NVML's
// clock-event reasons around the configuration (results 1.1.0), and sm_clock, the clock of every
// timed sample with those under the threshold dropped (results 1.2.0).
#pragma once

#include <optional>
#include <string>

#include "reports/results/record_gpu_state.hpp"

namespace rb::reports {

struct GpuThrottle {
  bool measured = false;                 // NVML answered for at least one GPU, before or after
  std::optional<std::string> held_down;  // which GPU, when and why, if heat or power held a clock down
  bool clock_measured = false;           // sm_clock with a threshold: samples could be dropped
  int dropped = 0, taken = 0;            // timed samples under the threshold, and all timed samples
  std::optional<std::string> sampled;    // "3 of 20 samples under 1485 MHz", when any was dropped
};

GpuThrottle gpu_throttle(const std::optional<RecordGpuState>& gpu_state, const std::optional<RecordSmClock>& sm_clock);

}  // namespace rb::reports
