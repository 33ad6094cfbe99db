// The fleet page's strip charts (fleet_page.cpp): one per metric, nodes on one lane and their GPUs on
// a second, x the standing against the fleet median. Internal to reports/fleet.
#pragma once

#include <string>
#include <string_view>

#include "reports/fleet/fleet.hpp"

namespace rb::reports::fleet_page {

// A <figure class="strip"> holding the SVG chart of one metric, its caption and a line saying how to
// read it.
std::string strip_chart(const FleetMetricResult& metric);

// "GPU-3f2a1b4c…" for a long UUID, so a label stays short; other names (cpu: "rank 1") as they are.
std::string short_gpu(std::string_view gpu);

// Whether worse values lie below the median on this metric.
bool worse_below(const FleetMetricResult& metric);

// "+8.1%", "−50.0%": a relative (1 is the median) as a signed change, with a real minus sign.
std::string signed_percent(double fraction, int decimals = 1);

}  // namespace rb::reports::fleet_page
