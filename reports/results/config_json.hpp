// The JSON form of a Config, as it appears in every run of results.json (`config`).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/config.hpp"

namespace rb::reports {

nlohmann::json to_json(const Config& c);
// A stable identifier of a configuration, used to match runs across results files.
std::string config_id(const Config& c);

}  // namespace rb::reports
