// The allgather variant; see variant_allgather.cpp for its schedule and traffic.
#pragma once

#include "ring/plan/variant_scheme.hpp"

namespace rb::ring {

class VariantAllgather final : public VariantScheme {
 public:
  Variant kind() const override;
  KvSchedule schedule(int c, std::int64_t rows) const override;
  BackwardSchedule backward(int c, std::int64_t rows, Dkv dkv, DType dtype) const override;
};

}  // namespace rb::ring
