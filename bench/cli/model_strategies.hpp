// The strategies a team chooses between (docs/model.md, "Strategies"): the ring variants, ulysses and
// the hybrid at each --ulysses-degree, side by side at each (S, c): their traffic and its formula,
// the link each part crosses, the compute, and the simulated pass and exposed comm; and where each
// wins, by bytes and by simulated time. The bytes are the plan's own (the work matrix's steps and
// the head exchange of ring/plan/head_exchange.cpp), so the model and a run agree on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/cli/model_report.hpp"

namespace rb::bench {

// One strategy: a variant and its all-to-all group (c for ulysses, 1 for the ring variants).
struct Strategy {
  Variant variant = Variant::ring;
  int degree = 1;
  std::string name() const;  // "ring", "ulysses", "hybrid U=4"
};

// The request's strategies at c: each variant once, the hybrid once per degree.
std::vector<Strategy> strategies_at(const ModelRequest& req, int cp);

// Why the strategy cannot run at (S, c) under the inputs' heads (the head exchange's rules), or
// nothing.
std::optional<std::string> strategy_refusal(const model::ModelInputs& in, std::int64_t seq, int cp, const Strategy& s);

// The split the strategies are simulated under: zigzag where the request has it, else its first.
Split strategy_split(const ModelRequest& req);

// points[].strategies: each strategy at (S, c) (possible or why not, formula, bytes and times per
// layer and device, the simulated pass), plus "fastest" and "fewest_bytes".
nlohmann::json strategies_json(const ModelRequest& req, std::int64_t seq, int cp);

// The crossover table: for each S, the strategy that wins at each c, by simulated pass time and by
// bytes, from the points' strategies.
nlohmann::json crossover_json(const nlohmann::json& points);

// Whether the request asks for the strategies' comparison: it names ulysses or the hybrid.
bool wants_strategies(const ModelRequest& req);

}  // namespace rb::bench
