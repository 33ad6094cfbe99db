// Reading gpu_state's throttle reasons and sm_clock's dropped samples.
#include "reports/results/gpu_state_reader.hpp"

#include <fmt/format.h>

namespace rb::reports {

GpuThrottle gpu_throttle(const std::optional<RecordGpuState>& gpu_state, const std::optional<RecordSmClock>& sm_clock) {
  GpuThrottle t;
  if (sm_clock && sm_clock->threshold_mhz && sm_clock->taken && sm_clock->dropped_count) {
    t.clock_measured = true;
    t.taken = static_cast<int>(*sm_clock->taken);
    t.dropped = static_cast<int>(*sm_clock->dropped_count);
    if (t.dropped > 0)
      t.sampled = fmt::format("{} of {} samples ran under {:.0f} MHz", t.dropped, t.taken, *sm_clock->threshold_mhz);
  }
  if (!gpu_state) return t;
  for (const auto& [when, list] : {std::pair{"start", &gpu_state->start}, std::pair{"end", &gpu_state->end}}) {
    if (!*list) continue;
    for (const RecordGpuDevice& g : **list) {
      if (!g.thermal_or_power_limited) continue;
      t.measured = true;
      if (!*g.thermal_or_power_limited || t.held_down) continue;
      std::string reasons;
      for (const auto& r : g.clock_event_reasons.value_or(std::vector<std::string>{}))
        reasons += (reasons.empty() ? "" : ", ") + r;
      t.held_down = fmt::format("GPU {} at the {}: {}", g.pci_bus_id.value_or("?"), when, reasons);
    }
  }
  return t;
}

}  // namespace rb::reports
