// The per-rank attention time of a record's metrics.
#include "reports/results/record_metrics.hpp"

namespace rb::reports {

std::optional<std::vector<RankValue>> RecordMetrics::rank_attention_ms() const {
  if (!per_rank) return std::nullopt;
  std::vector<RankValue> out;
  out.reserve(per_rank->size());
  for (const RecordRankMetrics& r : *per_rank) out.push_back({r.rank, r.attention_time_ms});
  return out;
}

}  // namespace rb::reports
