// Reading gpu_state's throttle reasons.
#include "reports/gpu_state_reader.hpp"

#include <fmt/format.h>

namespace rb::reports {

using nlohmann::json;

GpuThrottle gpu_throttle(const json& run) {
  GpuThrottle t;
  if (!run.is_object() || !run.contains("gpu_state") || !run.at("gpu_state").is_object()) return t;
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
