// The job's World and the input agreement (see distributed.hpp).
#include "bench/sweep/distributed.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/json_output.hpp"

namespace rb::bench {
namespace {

ring::World* g_world = nullptr;

using nlohmann::json;

std::string at_pointer(const json& doc, const std::string& path) {
  const json::json_pointer p(path);
  return doc.contains(p) ? doc.at(p).dump() : "missing";
}

}  // namespace

ring::World* world() { return g_world; }
void set_world(ring::World* w) { g_world = w; }
bool is_primary() { return g_world == nullptr || g_world->rank() == 0; }

void agree_on_input(const std::optional<InputError>& error, const std::string& canonical_json) {
  if (!g_world) return;
  json mine{{"ok", !error.has_value()}, {"text", canonical_json}};
  if (error) mine.update({{"where", error->where()}, {"value", error->value()}, {"rule", error->rule()}});
  const auto all = g_world->allgather_strings(json_text(mine));
  std::vector<json> outcomes;
  for (const auto& s : all) outcomes.push_back(json::parse(s));
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    const auto& o = outcomes[k];
    if (o["ok"].get<bool>()) continue;
    const auto where = o["where"].get<std::string>();
    throw AgreedInputError(k == 0 ? where : fmt::format("rank {}: {}", k, where), o["value"].get<std::string>(),
                           o["rule"].get<std::string>());
  }
  const auto& text0 = outcomes[0]["text"].get_ref<const std::string&>();
  for (std::size_t k = 1; k < outcomes.size(); ++k) {
    const auto& text = outcomes[k]["text"].get_ref<const std::string&>();
    if (text == text0) continue;
    const json base = json::parse(text0), other = json::parse(text);
    const json patch = json::diff(base, other);
    const std::string path = patch.empty() ? "" : patch[0]["path"].get<std::string>();
    throw AgreedInputError(
        fmt::format("rank {}: {}", k, path.empty() ? "/" : path),
        fmt::format("{} (rank 0 has {})", at_pointer(other, path), at_pointer(base, path)),
        "every MPI rank must be given the same sweep and options (one sweep runs across all of them)");
  }
}

RoundResult agree_on_round(ring::World& w, const RankOutcome& mine) {
  const json j{{"threw", mine.threw},
               {"induced", mine.induced},
               {"fatal", mine.fatal},
               {"signal", mine.signal},
               {"reason", mine.reason}};
  const auto all = w.allgather_strings(json_text(j));
  RoundResult result;
  int cause = -1;
  for (int pass = 0; pass < 2 && cause < 0; ++pass)
    for (std::size_t k = 0; k < all.size() && cause < 0; ++k) {
      const json o = json::parse(all[k]);
      if (o["threw"].get<bool>() && (pass == 1 || !o["induced"].get<bool>())) cause = static_cast<int>(k);
    }
  for (const auto& s : all) {
    const json o = json::parse(s);
    result.fatal = result.fatal || o["fatal"].get<bool>();
    result.signal = std::max(result.signal, o["signal"].get<int>());
  }
  if (cause >= 0) {
    const json o = json::parse(all[static_cast<std::size_t>(cause)]);
    result.failure = fmt::format("rank {}: {}", cause, o["reason"].get<std::string>());
  }
  return result;
}

bool agree_to_stop(ring::ProcessGroup* group, bool mine) {
  if (!group) return mine;
  std::vector<double> votes{mine ? 1.0 : 0.0};
  group->sum(votes);
  return votes[0] > 0;
}

}  // namespace rb::bench
