// Whether a results file ran an acceptance profile's sweep (accept_sweep.hpp).
#include "reports/compare/accept_sweep.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_output.hpp"
#include "reports/results/config_json.hpp"

namespace rb::reports {
// Named apart: a unity build joins this file with others that have helpers of the same names.
namespace accept_sweep {
namespace {

using nlohmann::json;

bool same_value(const json& x, const json& y) {
  return x.is_number() && y.is_number() ? x.get<double>() == y.get<double>() : x == y;
}

// The fields of a design only some configurations have: present on one side only, they differ.
bool design_field(const std::string& key) {
  return key == "dkv" || key == "ulysses_degree" || key == "document_lengths";
}

// A record's config with the defaults its id reads for the fields an older version did not write.
json with_defaults(json cfg) {
  if (!cfg.contains("kernel")) cfg["kernel"] = "ringbench";  // 2.1.0
  if (!cfg.contains("phase")) cfg["phase"] = "fwd";          // 2.10.0
  return cfg;
}

// Whether `config` agrees with `candidate` on every id field (another field an older file leaves
// out is one it did not vary).
bool agrees(const json& config, const json& candidate) {
  for (const std::string_view field : config_id_fields()) {
    const std::string key(field);
    if (config.contains(key) && candidate.contains(key)
            ? !same_value(config.at(key), candidate.at(key))
            : design_field(key) && config.contains(key) != candidate.contains(key))
      return false;
  }
  return true;
}

std::string values_text(const std::vector<json>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size() && i < 8; ++i) out += (out.empty() ? "" : ", ") + json_text(values[i]);
  if (values.size() > 8) out += fmt::format(", ... ({} values)", values.size());
  return out.empty() ? "none" : out;
}

}  // namespace
}  // namespace accept_sweep

void check_results_ran_sweep(const ResultsFile& results, const std::vector<nlohmann::json>& sweep,
                             const std::string& profile_path) {
  using nlohmann::json;
  std::set<std::string> ids;
  std::map<std::string, std::vector<json>> values;  // id field -> the sweep's values of it
  for (const json& c : sweep) {
    ids.insert(c.at("id").get<std::string>());
    for (const std::string_view field : config_id_fields()) {
      const std::string key(field);
      auto& v = values[key];
      const json x = c.contains(key) ? c.at(key) : json(nullptr);
      if (std::none_of(v.begin(), v.end(), [&](const json& y) { return accept_sweep::same_value(x, y); }))
        v.push_back(x);
    }
  }
  const json& runs = results.runs();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json cfg = accept_sweep::with_defaults(runs[i].at("config"));
    if (ids.count(cfg.at("id").get<std::string>())) continue;
    if (std::any_of(sweep.begin(), sweep.end(), [&](const json& c) { return accept_sweep::agrees(cfg, c); })) continue;
    const auto refuse = [&](const std::string& key, const json& value, const std::string& what) {
      throw InputError(fmt::format("{}: /runs/{}/config/{}", results.path.string(), i, key), json_text(value),
                       fmt::format("{} ({}): accept judges the results of its profile's own sweep", what,
                                   profile_path));
    };
    for (const std::string_view field : config_id_fields()) {
      const std::string key(field);
      const auto& v = values[key];
      if (!cfg.contains(key) && !accept_sweep::design_field(key)) continue;  // a field an older file did not write
      const json x = cfg.contains(key) ? cfg.at(key) : json(nullptr);
      if (std::none_of(v.begin(), v.end(), [&](const json& y) { return accept_sweep::same_value(x, y); }))
        refuse(key, x, fmt::format("the profile's sweep runs {} {}", key, accept_sweep::values_text(v)));
    }
    refuse("id", cfg.at("id"), "no configuration of the profile's sweep has this one's fields together");
  }
}

}  // namespace rb::reports
