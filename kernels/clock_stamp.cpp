// Cycles over nanoseconds (see clock_stamp.hpp).
#include "kernels/clock_stamp.hpp"

#include <algorithm>
#include <map>

#include "common/error.hpp"

namespace rb::kernels {

std::optional<double> clock_mhz(std::span<const ClockSpan> spans) {
  double cycles = 0, ns = 0;
  for (const ClockSpan& s : spans) {
    if (s.begin.sm == kNoSm || s.begin.sm != s.end.sm) return std::nullopt;
    if (s.begin.ns == 0 || s.end.ns < s.begin.ns || s.end.cycles < s.begin.cycles) return std::nullopt;
    cycles += static_cast<double>(s.end.cycles - s.begin.cycles);
    ns += static_cast<double>(s.end.ns - s.begin.ns);
  }
  if (ns <= 0) return std::nullopt;
  return cycles / ns * 1e3;  // cycles per ns is GHz
}

std::optional<double> slowest_clock_mhz(const std::vector<ClockSpan>& spans, const std::vector<int>& device_of) {
  if (spans.size() != device_of.size()) throw Error("slowest_clock_mhz: one device per span");
  std::map<int, std::vector<ClockSpan>> by_device;
  for (std::size_t i = 0; i < spans.size(); ++i) by_device[device_of[i]].push_back(spans[i]);
  std::optional<double> slowest;
  for (const auto& [device, list] : by_device)
    if (const auto mhz = clock_mhz(list)) slowest = slowest ? std::min(*slowest, *mhz) : *mhz;
  return slowest;
}

}  // namespace rb::kernels
