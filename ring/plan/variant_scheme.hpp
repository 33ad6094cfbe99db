// How K/V reach every rank (docs/design.md §1). Each variant is one small class in its own file, with
// its traffic formula beside it, that describes its schedule once (ring/plan/plan.hpp's KvSchedule):
// whether blocks are gathered or rotate, and in which pieces and directions. Everything else (the
// steps of the plan, the executors, the work matrix, the model) reads that schedule.
#pragma once

#include <memory>
#include <vector>

#include "ring/plan/plan.hpp"

namespace rb::ring {

class VariantScheme {
 public:
  virtual ~VariantScheme() = default;
  virtual Variant kind() const = 0;
  // The schedule for c ranks of `rows` rows each.
  virtual KvSchedule schedule(int c, std::int64_t rows) const = 0;
};

// The variant's object; the one place that maps a Variant to its class.
std::unique_ptr<VariantScheme> make_variant_scheme(Variant kind);

// The steps of rank r under `schedule`: at each step the pieces it attends to (their origins in
// key-row order), the segment pairs against them, and the bytes that arrive before the step and
// leave during it.
std::vector<StepPlan> schedule_steps(const KvSchedule& schedule, int r, const std::vector<SegmentList>& segs,
                                     bool causal, std::int64_t kv_bytes_per_token);

// Pairs of the query segments `queries` with the key segments `keys` of rank `src`, tagged `lane`.
std::vector<PlannedPair> pairs_against(const SegmentList& queries, int src, const SegmentList& keys, bool causal,
                                       int lane = 0);

}  // namespace rb::ring
