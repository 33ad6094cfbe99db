// A run's plan as its record holds it (docs/formats.md, `plan`): the work and bytes of each rank
// and, for c <= 64, of each of its steps. bench/sweep/result_record.hpp converts a ring::Plan into it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
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

// The backward's plan (2.10.0), where the phase has one (docs/design.md §3a).
struct RecordPlanBackwardRank {
  std::int64_t rank = 0;
  std::int64_t recv_bytes = 0, tail_recv_bytes = 0;
  std::optional<std::vector<RecordPlanStep>> steps;  // nullopt for c > 64; recv_bytes includes the dK/dV
};
struct RecordPlanBackward {
  std::string grads;  // how dK/dV return: "with_kv", "trailing" or "reduce_scatter"
  std::optional<double> flops;
  std::optional<std::int64_t> bytes_moved, grad_bytes_per_token;
  std::vector<RecordPlanBackwardRank> per_rank;
};

struct RecordPlan {
  bool present = false;  // false: the run has no plan (null in the file)
  std::optional<double> flops, work_imbalance;
  std::optional<std::int64_t> total_work, bytes_moved, kv_bytes_per_token;
  std::optional<std::vector<RecordPlanRank>> per_rank;  // nullopt: the file has none
  std::optional<double> forward_flops;                  // with a backward: the forward's; flops is the phase's
  std::optional<RecordPlanBackward> backward;           // with a backward

  // per_rank[].work by rank; nullopt when the file has no per_rank.
  std::optional<std::vector<RankValue>> rank_work() const;
};

}  // namespace rb::reports
