// The per-rank, per-step numbers of a plan without its pair lists: unmasked pairs and received bytes.
// make_plan keeps every segment pair of every step, which is what the executor needs but is heavy at
// c = 1024; the model and the simulator need only these two tables, built here from the same split
// schemes and rb::unmasked_pairs, so c = 1024 and S = 10M take milliseconds.
#pragma once

#include <cstdint>
#include <vector>

#include "common/config.hpp"
#include "common/kv_schedule.hpp"

namespace rb::ring {

struct WorkMatrix {
  Config config;
  int ranks = 0;                        // c
  int steps = 0;                        // the schedule's: c when blocks rotate, 1 when they are gathered
  KvSchedule schedule;                  // the variant's, as Plan::schedule
  HeadExchange exchange;                // the variant's, as Plan::exchange
  std::int64_t kv_bytes_per_token = 0;  // 2 * kv_heads * D * element bytes, as Plan
  // Row-major [r * steps + j], the same numbers as make_plan's RankPlan::steps[j].
  std::vector<std::int64_t> unmasked;    // unmasked (query, key) pairs of one head
  std::vector<std::int64_t> recv_bytes;  // K/V bytes that must arrive before the step (not the exchange's)

  std::int64_t unmasked_at(int r, int j) const { return unmasked[static_cast<std::size_t>(r) * steps + j]; }
  std::int64_t recv_bytes_at(int r, int j) const { return recv_bytes[static_cast<std::size_t>(r) * steps + j]; }
  // Over all steps of rank r, one head.
  std::int64_t rank_unmasked(int r) const;
  // Unmasked pairs times the query heads a rank attends with, as Plan::work.
  std::int64_t work(int r) const { return rank_unmasked(r) * exchange.q_heads; }
  // max_r work / mean_r work, as Plan::work_imbalance; 1.0 when all ranks are equal.
  double work_imbalance() const;
};

// Validates cfg as make_plan does (shape, the split's divisibility) and fills the tables. Throws
// InputError on bad input.
WorkMatrix make_work_matrix(const Config& cfg);

// The all-gather matrix of the same configuration from a ring matrix, without recounting pairs: its
// one step holds each rank's total pairs and every byte the ring would have received.
WorkMatrix allgather_from_ring(const WorkMatrix& ring);

}  // namespace rb::ring
