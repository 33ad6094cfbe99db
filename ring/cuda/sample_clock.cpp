// Clock probes around a pass, read back as the sample's SM clock (see sample_clock.hpp).
#include "ring/cuda/sample_clock.hpp"

#include "common/error.hpp"
#include "kernels/clock_probe.cuh"
#include "kernels/cuda_check.hpp"
#include "ring/cuda/cuda_devices.hpp"

namespace rb::ring {

SampleClock::SampleClock(int device) : device_(device) {
  use_device(device);
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  stamps_ = kernels::DeviceBuffer<kernels::ClockStamp>(2);
  RB_CUDA_CHECK(cudaMemset(stamps_.get(), 0xFF, stamps_.bytes()));  // unwritten: sm == kNoSm
}

// Both stamps back to unwritten first, in the stream: a probe whose blocks all missed the probe SM
// then leaves no reading rather than the last pass's.
void SampleClock::before(cudaStream_t s) {
  RB_CUDA_CHECK(cudaMemsetAsync(stamps_.get(), 0xFF, stamps_.bytes(), s));
  kernels::clock_probe({stamps_.get(), sms_}, s);
}
void SampleClock::after(cudaStream_t s) { kernels::clock_probe({stamps_.get() + 1, sms_}, s); }

kernels::ClockSpan SampleClock::read() const {
  kernels::ClockStamp h[2];
  use_device(device_);
  RB_CUDA_CHECK(cudaMemcpy(h, stamps_.get(), sizeof h, cudaMemcpyDeviceToHost));
  return {h[0], h[1]};
}

double nominal_clock_mhz(int device) {
  int khz = 0;
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  return khz / 1000.0;
}

}  // namespace rb::ring
