// The JSON form of a Config, as it appears in every run of results.json (`config`).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/config.hpp"

namespace rb::reports {

nlohmann::json to_json(const Config& c);
// A stable identifier of a configuration, used to match runs across results files.
std::string config_id(const Config& c);
// The fields of `config` that config_id is made of: what was measured. Two runs matched by id must
// agree on each (seed, repeats and warmup may differ: they say how it was measured).
std::span<const std::string_view> config_id_fields();

}  // namespace rb::reports
