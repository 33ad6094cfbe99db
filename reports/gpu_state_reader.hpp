// What a record's gpu_state (bench/gpu_state.hpp, results 1.1.0) says about throttling, for the
// readers that act on it: compare (a throttled run is NOISY, never SLOWER) and accept (the "not
// throttled" check).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rb::reports {

struct GpuThrottle {
  bool measured = false;  // NVML answered for at least one GPU, before or after
  std::optional<std::string> held_down;  // which GPU, when and why, if heat or power held a clock down
};

GpuThrottle gpu_throttle(const nlohmann::json& run);

}  // namespace rb::reports
