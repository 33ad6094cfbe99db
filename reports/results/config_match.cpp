// The raw checks of two results files' runs (config_match.hpp).
#include "reports/results/config_match.hpp"

#include <string_view>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_output.hpp"
#include "reports/results/config_json.hpp"

namespace rb::reports {

using nlohmann::json;

void check_same_config(const ResultsFile& base, std::size_t bi, const ResultsFile& neu, std::size_t ni) {
  const json& a = base.runs()[bi].at("config");
  const json& b = neu.runs()[ni].at("config");
  for (const std::string_view field : config_id_fields()) {
    const std::string key(field);
    if (!a.contains(key) || !b.contains(key)) continue;  // an older file's default, as its id says
    const json &x = a.at(key), &y = b.at(key);
    if (x.is_number() && y.is_number() ? x.get<double>() == y.get<double>() : x == y) continue;
    throw InputError(fmt::format("{}: /runs/{}/config/{}", base.path.string(), bi, key),
                     fmt::format("{} vs {}", json_text(x), json_text(y)),
                     fmt::format("differs in {}: /runs/{}/config/{}, a run of the same config id: matched by id, "
                                 "they would be compared as one configuration",
                                 neu.path.string(), ni, key));
  }
}

std::string pairing_id(const ResultsFile& f) {
  const json& p = f.doc.contains("pairing") ? f.doc.at("pairing") : json();
  return p.is_object() && p.contains("pair_id") && p.at("pair_id").is_string() ? p.at("pair_id").get<std::string>()
                                                                               : "";
}

}  // namespace rb::reports
