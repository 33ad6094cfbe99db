// Reading gpu_state's throttle reasons and sm_clock's dropped samples.
#include "reports/results/gpu_state_reader.hpp"

#include <fmt/format.h>

namespace rb::reports {

using nlohmann::json;

GpuThrottle gpu_throttle(const json& run) {
  GpuThrottle t;
  if (!run.is_object()) return t;
  if (run.contains("sm_clock") && run.at("sm_clock").is_object()) {
    const json& c = run.at("sm_clock");
    const json& threshold = c.value("threshold_mhz", json());
    if (threshold.is_number() && c.value("taken", json()).is_number_integer() &&
        c.value("dropped_count", json()).is_number_integer()) {
      t.clock_measured = true;
      t.taken = c.at("taken").get<int>();
      t.dropped = c.at("dropped_count").get<int>();
      if (t.dropped > 0)
        t.sampled = fmt::format("{} of {} samples ran under {:.0f} MHz", t.dropped, t.taken, threshold.get<double>());
    }
  }
  if (!run.contains("gpu_state") || !run.at("gpu_state").is_object()) return t;
  for (const char* when : {"start", "end"}) {
    const json& list = run.at("gpu_state").value(when, json());
    if (!list.is_array()) continue;
    for (const auto& g : list) {
      if (!g.is_object() || !g.contains("thermal_or_power_limited") || !g.at("thermal_or_power_limited").is_boolean())
        continue;
      t.measured = true;
      if (!g.at("thermal_or_power_limited").get<bool>() || t.held_down) continue;
      std::string reasons;
      if (g.contains("clock_event_reasons") && g.at("clock_event_reasons").is_array())
        for (const auto& r : g.at("clock_event_reasons"))
          if (r.is_string()) reasons += (reasons.empty() ? "" : ", ") + r.get<std::string>();
      t.held_down = fmt::format("GPU {} at the {}: {}", g.value("pci_bus_id", std::string("?")), when, reasons);
    }
  }
  return t;
}

}  // namespace rb::reports
