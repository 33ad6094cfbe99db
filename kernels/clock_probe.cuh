// The clock probe: one thread that writes its SM's clock64 and the device's %globaltimer into a
// ClockStamp (kernels/clock_stamp.hpp). Enqueued on a pass's stream before and after the pass, it
// measures the SM clock the pass ran at. It runs in a few microseconds and sits outside the events
// that time the pass. CPU twin: kernels/clock_probe_ref.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/clock_stamp.hpp"

namespace rb::kernels {

struct ClockProbeParams {
  ClockStamp* out = nullptr;  // device memory, one stamp
};

// Enqueues the probe on `stream` (capturable). Throws rb::Error on a null stamp and rb::ApiError
// when the launch fails.
void clock_probe(const ClockProbeParams& p, cudaStream_t stream);

}  // namespace rb::kernels
