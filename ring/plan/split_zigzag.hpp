// The zigzag split scheme; see split_zigzag.cpp for its segments and divisibility rule.
#pragma once

#include "ring/plan/split_scheme.hpp"

namespace rb::ring {

class SplitZigzag final : public SplitScheme {
 public:
  Split kind() const override;
  std::int64_t divisor(int c) const override;
  SegmentList segments(std::int64_t S, int c, int r) const override;
};

}  // namespace rb::ring
