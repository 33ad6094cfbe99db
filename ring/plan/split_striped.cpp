// striped: rank r holds positions r, r+c, r+2c, ... (one segment of stride c). Balanced to within
// one row per rank, but every pair of blocks straddles the diagonal, so every tile is masked.
#include "ring/plan/split_striped.hpp"

namespace rb::ring {

Split SplitStriped::kind() const { return Split::striped; }
std::int64_t SplitStriped::divisor(int c) const { return c; }
SegmentList SplitStriped::segments(std::int64_t S, int c, int r) const { return {Segment{r, c, S / c}}; }

}  // namespace rb::ring
