// Placing a transfer's execution windows on the event clock (see exec_stamp.hpp).
#include "kernels/exec_stamp.hpp"

#include <algorithm>

namespace rb::kernels {

std::optional<std::vector<ExecWindow>> place_exec_windows(std::span<const ExecStamp> stamps, std::int64_t span_begin_ns,
                                                          std::int64_t span_end_ns) {
  if (stamps.empty()) return std::nullopt;
  std::uint64_t last_end = 0;
  for (const auto& s : stamps) {
    if (!stamp_valid(s)) return std::nullopt;
    last_end = std::max(last_end, s.end);
  }
  std::vector<ExecWindow> out;
  out.reserve(stamps.size());
  auto place = [&](std::uint64_t t) {
    const auto before_end = static_cast<std::int64_t>(last_end - t);
    return std::clamp(span_end_ns - before_end, span_begin_ns, span_end_ns);
  };
  for (const auto& s : stamps) {
    const std::int64_t end = place(s.end);
    const bool inside_one_tick = stamp_begin(s) == s.end;
    const std::int64_t begin = inside_one_tick ? std::max(end - kGlobalTimerTickNs, span_begin_ns)
                                               : place(stamp_begin(s));
    out.push_back(ExecWindow{begin, end});
  }
  return out;
}

}  // namespace rb::kernels
