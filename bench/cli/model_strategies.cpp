// The strategies side by side (see model_strategies.hpp). Each strategy is priced by
// model::price_strategy (model/strategy_pricing.hpp) from its work matrix (the K/V the schedule
// moves) and its head exchange (the all-to-alls), so every figure here is the plan's; the text formula
// beside them is for people.
#include "bench/cli/model_strategies.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "model/comm_compute.hpp"
#include "model/ring_simulator.hpp"
#include "model/strategy_pricing.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// The traffic formula of a strategy, per device and layer, in the model's symbols (local heads: per
// tensor-parallel rank; e the K/V element's bytes).
std::string formula(const Strategy& s) {
  switch (s.variant) {
    case Variant::ring:
    case Variant::ring_bidirectional:
      return "K/V: (c-1)/c * S * 2*Hkv*D*e over --link, c-1 transfers hidden behind the steps";
    case Variant::allgather: return "K/V: (c-1)/c * S * 2*Hkv*D*e over --link, one gather before the one step";
    case Variant::ulysses:
      return "all-to-all: (c-1)/c^2 * S * (2*Hq + 2*c*kvh)*D*e (kvh = Hkv/c, or 1 replicated) over the "
             "inner link within a node, none of it hidden";
    case Variant::hybrid:
      return fmt::format(
          "all-to-all: (U-1)/(U*c) * S * (2*Hq + 2*U*kvh)*D*e (kvh = Hkv/U, or 1 replicated; U = {}) over the "
          "inner link within a node, + K/V ring: (G-1)/G * S * 2*kvh*D*e over --link (G = c/U)",
          s.degree);
  }
  return "";
}

}  // namespace

std::string Strategy::name() const { return strategy_label(to_string(variant), degree); }

bool wants_strategies(const ModelRequest& req) {
  return std::any_of(req.variants.begin(), req.variants.end(), [](Variant v) { return exchanges_heads(v); });
}

std::vector<Strategy> strategies_at(const ModelRequest& req, int cp) {
  std::vector<Strategy> out;
  for (const Variant v : req.variants) {
    if (ulysses_degree_matters(v)) {
      for (const int u : req.ulysses_degrees) out.push_back({v, u});
    } else {
      Config c;
      c.variant = v;
      c.cp = cp;
      out.push_back({v, exchange_degree(c)});
    }
  }
  return out;
}

std::optional<std::string> strategy_refusal(const model::ModelInputs& in, std::int64_t seq, int cp, const Strategy& s) {
  if (!exchanges_heads(s.variant)) return std::nullopt;
  try {
    // The head exchange's rules on this tensor-parallel rank's heads; any split makes them.
    (void)model_work_matrix(in, seq, cp, Split::striped, s.variant, s.degree);
  } catch (const InputError& e) {
    if (e.where() == "heads" || e.where() == "kv-heads" || e.where() == "ulysses-degree")
      return fmt::format("{} {}: {}", e.where(), e.value(), e.rule());
    throw;
  }
  return std::nullopt;
}

Split strategy_split(const ModelRequest& req) {
  return std::find(req.splits.begin(), req.splits.end(), Split::zigzag) != req.splits.end() ? Split::zigzag
                                                                                            : req.splits.front();
}

json strategies_json(const ModelRequest& req, std::int64_t seq, int cp) {
  const model::ModelInputs& in = req.inputs;
  const Split split = strategy_split(req);
  json list = json::array();
  std::string fastest, fewest;
  double best_pass = std::numeric_limits<double>::infinity(), best_bytes = best_pass;
  for (const Strategy& st : strategies_at(req, cp)) {
    json j{{"name", st.name()}, {"variant", to_string(st.variant)}, {"formula", formula(st)}};
    if (exchanges_heads(st.variant)) j["ulysses_degree"] = st.degree;
    if (const auto why = strategy_refusal(in, seq, cp, st)) {
      j["possible"] = false;
      j["reason"] = *why;
      list.push_back(std::move(j));
      continue;
    }
    const ring::WorkMatrix wm = model_work_matrix(in, seq, cp, split, st.variant, st.degree, req.documents, req.seed);
    const model::StrategyPrice p = model::price_strategy(in, seq, cp, strategy_work(wm),
                                                         within_documents_share(req, seq, in.causal), req.simulate);
    j["possible"] = true;
    j["split"] = to_string(split);
    j["bytes_per_layer"] = p.bytes();
    j["kv"] = {{"bytes_per_layer", p.kv_bytes},
               {"transfers", p.kv_transfers},
               {"link", in.link.name},
               {"transfer_s", p.kv_transfer_s}};
    j["alltoall"] = {{"bytes_per_layer", p.alltoall_bytes},
                     {"transfers", p.alltoall_transfers},
                     {"link", p.alltoall_link},
                     {"transfer_s", p.alltoall_transfer_s}};
    j["compute_s"] = p.compute_s;
    if (p.bytes() < best_bytes) {
      best_bytes = p.bytes();
      fewest = st.name();
    }
    if (p.simulation) {
      const model::Simulation& sim = *p.simulation;
      j["pass_s"] = sim.pass_s;
      j["exposed_comm_max_s"] = sim.exposed_comm_max_s;
      j["overlap_fraction"] = sim.overlap_fraction ? json(*sim.overlap_fraction) : json(nullptr);
      if (sim.pass_s < best_pass) {
        best_pass = sim.pass_s;
        fastest = st.name();
      }
    }
    list.push_back(std::move(j));
  }
  return {{"split", to_string(split)},
          {"list", list},
          {"fewest_bytes", fewest.empty() ? json(nullptr) : json(fewest)},
          {"fastest", fastest.empty() ? json(nullptr) : json(fastest)}};
}

json crossover_json(const json& points) {
  json rows = json::array();
  for (const auto& p : points) {
    const auto seq = p["seq"].get<std::int64_t>();
    if (rows.empty() || rows.back()["seq"].get<std::int64_t>() != seq)
      rows.push_back(
          {{"seq", seq}, {"cp", json::array()}, {"fastest", json::array()}, {"fewest_bytes", json::array()}});
    json& row = rows.back();
    row["cp"].push_back(p["cp"]);
    row["fastest"].push_back(p["strategies"]["fastest"]);
    row["fewest_bytes"].push_back(p["strategies"]["fewest_bytes"]);
  }
  return {{"rows", rows}};
}

}  // namespace rb::bench
