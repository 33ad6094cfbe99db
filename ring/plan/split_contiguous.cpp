// contiguous: rank r holds [r*S/c, (r+1)*S/c). Under a causal mask the last rank attends to all
// earlier keys and the first to almost none: work imbalance tends to (2c-1)/c.
#include "ring/plan/split_contiguous.hpp"

namespace rb::ring {

Split SplitContiguous::kind() const { return Split::contiguous; }
std::int64_t SplitContiguous::divisor(int c) const { return c; }
SegmentList SplitContiguous::segments(std::int64_t S, int c, int r) const {
  const std::int64_t n = S / c;
  return {Segment{r * n, 1, n}};
}

}  // namespace rb::ring
