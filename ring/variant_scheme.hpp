// How K/V reach every rank (docs/design.md §1): each variant is one small class in its own file with its
// traffic formula beside it, and turns the ranks' segments into per-step plans.
#pragma once

#include <memory>
#include <vector>

#include "ring/plan.hpp"

namespace rb::ring {

class VariantScheme {
 public:
  virtual ~VariantScheme() = default;
  virtual Variant kind() const = 0;
  // Steps of rank r, given every rank's segments.
  virtual std::vector<StepPlan> steps(int r, const std::vector<SegmentList>& segs, bool causal,
                                      std::int64_t kv_bytes_per_token) const = 0;
};

std::unique_ptr<VariantScheme> make_variant_scheme(Variant kind);

// Pairs of the query segments of rank r with the key segments of rank src.
std::vector<PlannedPair> pairs_against(int r, int src, const std::vector<SegmentList>& segs, bool causal);

}  // namespace rb::ring
