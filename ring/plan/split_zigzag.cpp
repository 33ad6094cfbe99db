// zigzag: the sequence is cut into 2c chunks of S/(2c); rank r holds chunks r and 2c-1-r, pairing
// a cheap early chunk with an expensive late one, so causal work is equal across ranks.
#include "ring/plan/split_zigzag.hpp"

namespace rb::ring {

Split SplitZigzag::kind() const { return Split::zigzag; }
std::int64_t SplitZigzag::divisor(int c) const { return 2 * static_cast<std::int64_t>(c); }
SegmentList SplitZigzag::segments(std::int64_t S, int c, int r) const {
  const std::int64_t n = S / (2 * static_cast<std::int64_t>(c));
  const std::int64_t late = 2 * static_cast<std::int64_t>(c) - 1 - r;
  return {Segment{r * n, 1, n}, Segment{late * n, 1, n}};
}

}  // namespace rb::ring
