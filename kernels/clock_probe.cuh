// The clock probe: writes one SM's clock64 and the device's %globaltimer into a ClockStamp
// (kernels/clock_stamp.hpp). Enqueued on a pass's stream before and after the pass, it measures the
// SM clock the pass ran at. clock64 is per SM, so the probe runs one single-thread block per SM and
// only the first block to land on kClockProbeSm writes: both probes of a span then read the same
// counter. It runs in a few microseconds and sits outside the events that time the pass. CPU twin:
// kernels/clock_probe_ref.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/clock_stamp.hpp"

namespace rb::kernels {

struct ClockProbeParams {
  ClockStamp* out = nullptr;  // device memory, one stamp; its `sm` must read kNoSm before the launch
  int blocks = 1;             // one per SM (cudaDevAttrMultiProcessorCount), so one lands on each
};

// Enqueues the probe on `stream` (capturable). Throws rb::Error on a null stamp or fewer than one
// block, and rb::ApiError when the launch fails. A stamp no block wrote keeps sm == kNoSm.
void clock_probe(const ClockProbeParams& p, cudaStream_t stream);

}  // namespace rb::kernels
