// Checking each c = 1 alias of a results document against the run it names.
#include "reports/results/results_aliases.hpp"

#include <map>
#include <string_view>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_output.hpp"
#include "reports/results/config_json.hpp"

namespace rb::reports {

using nlohmann::json;

void check_aliases(const json& doc, const std::string& source) {
  if (!doc.contains("runs") || !doc.at("runs").is_array()) return;
  const json& runs = doc.at("runs");
  std::map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (const json& id = runs[i].at("config").at("id"); id.is_string()) by_id.emplace(id.get<std::string>(), i);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json& run = runs[i];
    if (!run.contains("alias_of") || run.at("alias_of").is_null()) continue;
    const json& target = run.at("alias_of");
    auto refuse = [&](const std::string& rule) {
      throw InputError(fmt::format("{}: /runs/{}/alias_of", source, i), json_text(target), rule);
    };
    const auto it = by_id.find(target.get<std::string>());
    if (it == by_id.end()) refuse("names no run of this file: an alias carries the measurement of a run beside it");
    if (it->second == i) refuse("is the run's own id: an alias names the configuration that was measured");
    const json& measured = runs[it->second];
    if (measured.contains("alias_of") && !measured.at("alias_of").is_null())
      refuse(fmt::format("names /runs/{}, itself an alias (of {}): an alias names the run that was measured",
                         it->second, json_text(measured.at("alias_of"))));
    const json &a = run.at("config"), &b = measured.at("config");
    for (const std::string_view field : config_id_fields()) {
      const std::string key(field);
      // What an alias may differ in: at c = 1 no split, variant or backward design moves anything.
      if (key == "split" || key == "variant" || key == "dkv") continue;
      if (key == "cp" && !(a.value(key, json()) == 1 && b.value(key, json()) == 1))
        refuse(
            fmt::format("joins a run at c = {} to one at c = {}: only at c = 1 are splits and variants one "
                        "computation",
                        json_text(a.value(key, json())), json_text(b.value(key, json()))));
      if (!a.contains(key) || !b.contains(key)) continue;
      const json &x = a.at(key), &y = b.at(key);
      if (x.is_number() && y.is_number() ? x.get<double>() == y.get<double>() : x == y) continue;
      refuse(fmt::format("names /runs/{}, whose config/{} is {}, not {}: an alias is the same computation", it->second,
                         key, json_text(y), json_text(x)));
    }
  }
}

}  // namespace rb::reports
