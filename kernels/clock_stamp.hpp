// What the clock probe (kernels/clock_probe.cuh) leaves behind, and the arithmetic on it. A probe
// before and one after a timed pass, on the pass's stream, give the SM clock over the pass as
// cycles (clock64) over nanoseconds (%globaltimer): NVBench's way of seeing a throttled sample
// without NVML, so it works on any node, the lent machines included.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kernels/host_device.hpp"

namespace rb::kernels {

// clock64 counts the cycles of one SM, and the counters of two SMs do not agree: a probe before a
// pass and one after it that ran on different SMs give a difference that is meaningless but
// plausible. So the probe is launched as one block per SM and only a block on this SM writes, as
// NVBench's timestamps kernel does; the stamp records the SM, and a span whose two stamps name
// different SMs (or none) is no reading.
inline constexpr std::uint32_t kClockProbeSm = 0;
inline constexpr std::uint32_t kNoSm = 0xFFFFFFFFu;  // what the reset before a probe leaves: unwritten

// Whether a probe block on SM `smid` writes the stamp (the kernel and its twin ask this alike).
RB_HD constexpr bool clock_probe_writes(std::uint32_t smid) { return smid == kClockProbeSm; }

struct ClockStamp {
  std::uint64_t cycles = 0;  // the SM's clock64 counter
  std::uint64_t ns = 0;      // the device's %globaltimer
  std::uint32_t sm = kNoSm;  // the SM that wrote cycles and ns, claimed before it writes them
  std::uint32_t pad = 0;
};

// One timed span: the stamps written before and after it on one stream.
struct ClockSpan {
  ClockStamp begin, end;
};

// The SM clock in MHz (cycles per microsecond) over the spans of one device, weighted by their
// lengths: total cycles over total nanoseconds. nullopt when no span has a positive duration, a
// stamp was never written, the two stamps of a span came from different SMs, or a counter went
// backwards in any of them, so a bad reading is never taken for a slow clock.
std::optional<double> clock_mhz(std::span<const ClockSpan> spans);

// The clock of a sample that ran on several devices: each device's clock over its spans (cycles
// over nanoseconds), then the slowest device's, since one throttled GPU holds the whole ring back.
// `device_of[i]` is the device of `spans[i]`; a device whose reading is unusable is left out;
// nullopt when none is usable.
std::optional<double> slowest_clock_mhz(const std::vector<ClockSpan>& spans, const std::vector<int>& device_of);

}  // namespace rb::kernels
