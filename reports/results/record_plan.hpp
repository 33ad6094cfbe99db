// A run's plan as its record holds it (docs/formats.md, `plan`): the work and bytes of each rank
// and, for c <= 64, of each of its steps. bench/sweep/result_record.hpp converts a ring::Plan into it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "reports/results/record_metrics.hpp"

namespace rb::reports {

struct RecordPlanStep {
  std::int64_t step = 0;
  std::vector<std::int64_t> sources;
  std::int64_t unmasked_pairs = 0, recv_bytes = 0, send_bytes = 0;
  std::int64_t full = 0, partial = 0, skip = 0;  // pairs by mask class
};

struct RecordPlanRank {
  std::int64_t rank = 0;  // its position in per_rank when the file names none
  std::int64_t tokens = 0;
  std::vector<std::array<std::int64_t, 3>> segments;  // start, stride, count
  std::int64_t unmasked_pairs = 0;
  std::optional<std::int64_t> work;  // unmasked pairs × Hq
  std::int64_t recv_bytes = 0;
  std::optional<std::vector<RecordPlanStep>> steps;  // nullopt for c > 64
};

struct RecordPlan {
  bool present = false;  // false: the run has no plan (null in the file)
  std::optional<double> flops, work_imbalance;
  std::optional<std::int64_t> total_work, bytes_moved, kv_bytes_per_token;
  std::optional<std::vector<RecordPlanRank>> per_rank;  // nullopt: the file has none

  // per_rank[].work by rank; nullopt when the file has no per_rank.
  std::optional<std::vector<RankValue>> rank_work() const;
};

}  // namespace rb::reports
