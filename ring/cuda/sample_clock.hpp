// The SM clock of each timed sample on the CUDA backend (NVBench's per-sample frequency): a clock
// probe (kernels/clock_probe.cuh) on a pass's origin stream before the pass and one after, outside
// the events that time it. The CUDA executor owns one per origin stream; ConfigurationRounds drops a sample
// whose clock sits under --throttle-threshold (bench/sweep/throttle_filter.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/clock_stamp.hpp"
#include "kernels/device_buffer.hpp"

namespace rb::ring {

class SampleClock {
 public:
  SampleClock() = default;
  // Allocates the two stamps on `device` and makes it current.
  explicit SampleClock(int device);

  // Enqueue the probes on `s`, a stream of this clock's device (the current device); before()
  // first resets both stamps.
  void before(cudaStream_t s);
  void after(cudaStream_t s);
  // The span of the last pass, once `s` has finished it.
  kernels::ClockSpan read() const;
  int device() const { return device_; }

 private:
  kernels::DeviceBuffer<kernels::ClockStamp> stamps_;  // [before, after]
  int device_ = -1;
  int sms_ = 1;  // the probe's blocks: one per SM
};

// The clock the runtime reports for `device` (cudaDevAttrClockRate), in MHz: the reference the
// throttle threshold is a fraction of, as in NVBench.
double nominal_clock_mhz(int device);

}  // namespace rb::ring
