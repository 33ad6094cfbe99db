// What a results file records about where it ran: tool version and git sha, command line, host,
// CPU, OS, and (for CUDA builds) devices and library versions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::bench {

nlohmann::json tool_info(const std::vector<std::string>& argv);
nlohmann::json host_info();

}  // namespace rb::bench
