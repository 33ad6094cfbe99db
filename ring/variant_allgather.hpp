// The allgather variant; see variant_allgather.cpp for its schedule and traffic.
#pragma once

#include "ring/variant_scheme.hpp"

namespace rb::ring {

class VariantAllgather final : public VariantScheme {
 public:
  Variant kind() const override;
  std::vector<StepPlan> steps(int r, const std::vector<SegmentList>& segs, bool causal,
                              std::int64_t kv_bytes_per_token) const override;
};

}  // namespace rb::ring
