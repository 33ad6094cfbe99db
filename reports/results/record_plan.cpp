// The per-rank work of a record's plan.
#include "reports/results/record_plan.hpp"

namespace rb::reports {

std::optional<std::vector<RankValue>> RecordPlan::rank_work() const {
  if (!per_rank) return std::nullopt;
  std::vector<RankValue> out;
  out.reserve(per_rank->size());
  for (const RecordPlanRank& r : *per_rank)
    out.push_back({r.rank, r.work ? std::optional<double>(static_cast<double>(*r.work)) : std::nullopt});
  return out;
}

}  // namespace rb::reports
