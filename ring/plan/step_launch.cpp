// The per-step launch decision (see step_launch.hpp).
#include "ring/plan/step_launch.hpp"

#include "ring/plan/block_pairs.hpp"

namespace rb::ring {

std::string_view to_string(StepAction a) {
  switch (a) {
    case StepAction::write: return "write";
    case StepAction::merge: return "merge";
    case StepAction::skip: return "skip";
  }
  return "?";
}

std::vector<StepLaunch> step_launches(const Plan& plan, int rank) {
  const Config& cfg = plan.config;
  const auto& rp = plan.ranks.at(rank);
  auto pairs = step_block_pairs(plan, rank);
  const std::int64_t sq = rp.attention_tokens;
  const std::int64_t sk = plan.schedule.gathered ? sq * plan.exchange.groups : plan.schedule.key_rows();
  std::vector<StepLaunch> out;
  out.reserve(pairs.size());
  for (std::size_t j = 0; j < pairs.size(); ++j) {
    StepLaunch sl;
    sl.step = static_cast<int>(j);
    sl.pairs = std::move(pairs[j]);
    sl.sq = sq;
    sl.sk = sk;
    sl.unmasked = rp.steps[j].unmasked;
    if (j == 0)
      sl.action = StepAction::write;
    else
      sl.action = kernels::tiling::has_active_pair(sl.pairs, cfg.causal) ? StepAction::merge : StepAction::skip;
    if (sl.action != StepAction::skip) sl.work = kernels::tiling::plan_attention_work(sl.pairs, sq, sk, cfg.causal);
    out.push_back(std::move(sl));
  }
  return out;
}

}  // namespace rb::ring
