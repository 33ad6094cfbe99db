// The hybrid variant; see variant_hybrid.cpp for its exchange, ring and traffic.
#pragma once

#include "ring/plan/variant_scheme.hpp"

namespace rb::ring {

class VariantHybrid final : public VariantScheme {
 public:
  Variant kind() const override;
  KvSchedule schedule(int c, std::int64_t rows) const override;
  BackwardSchedule backward(int c, std::int64_t rows, Dkv dkv, DType dtype) const override;
  HeadExchange head_exchange(const Config& cfg, std::int64_t shard_rows) const override;
};

}  // namespace rb::ring
