// When a transfer executed, on the GPU's %globaltimer: each copy folds its first CTA's start and its
// last CTA's end into an ExecStamp. Both fields fold in with a max (the start as its complement), so
// one memset of zeros resets every stamp of a pass. The host then places the windows on the CUDA
// event clock of the pass: the event recorded right after a transfer's last operation completes as
// that operation ends, so the latest end stamp is pinned to it and every window keeps its exact
// distance from there. The comm time of the timed passes is built from these windows (execution,
// HTA's definition); the events around the transfer give its time in flight (docs/metrics.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kernels/host_device.hpp"

namespace rb::kernels {

struct ExecStamp {
  std::uint64_t inv_begin = 0;  // ~(earliest start), folded in with max; 0: never started
  std::uint64_t end = 0;        // latest end, folded in with max; 0: never ended
};

RB_HD constexpr bool stamp_valid(const ExecStamp& s) { return s.inv_begin != 0 && s.end != 0 && ~s.inv_begin <= s.end; }
RB_HD constexpr std::uint64_t stamp_begin(const ExecStamp& s) { return ~s.inv_begin; }
// What the device does with two atomicMax calls, for the host (the CPU twin and tests).
constexpr void fold_stamp(ExecStamp& s, std::uint64_t begin_ns, std::uint64_t end_ns) {
  if (~begin_ns > s.inv_begin) s.inv_begin = ~begin_ns;
  if (end_ns > s.end) s.end = end_ns;
}

// The step of %globaltimer when no profiler raises its rate: up to a microsecond. A copy that ran
// inside one step (a 0.5 MB step copy takes about 0.1 us on an H200) leaves begin == end stamps,
// though it ran. Its window is then one tick long, ending at its end stamp: the longest the copy
// can have run, so comm time errs long by at most a tick per such copy, and a rank never loses its
// execution windows (and its comm basis) to the timer's resolution. Windows the timer did resolve
// keep their stamps.
inline constexpr std::int64_t kGlobalTimerTickNs = 1000;

struct ExecWindow {
  std::int64_t begin_ns = 0, end_ns = 0;
};

// The execution windows of one transfer's copies, on the clock of its in-flight span
// [span_begin_ns, span_end_ns] (CUDA events on the same stream before its first and after its last
// operation): the latest end stamp sits at span_end_ns, a window whose stamps are equal is
// kGlobalTimerTickNs long, and windows are clipped to the span. nullopt when a stamp was never written (the copy did
// not run through a stamping kernel).
std::optional<std::vector<ExecWindow>> place_exec_windows(std::span<const ExecStamp> stamps, std::int64_t span_begin_ns,
                                                          std::int64_t span_end_ns);

}  // namespace rb::kernels
