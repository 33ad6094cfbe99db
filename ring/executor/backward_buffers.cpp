// Reading the own block's dK/dV back (see backward_buffers.hpp).
#include "ring/executor/backward_buffers.hpp"

#include "common/error.hpp"

namespace rb::ring {

std::int64_t own_block_key_row(const KvSchedule& sch, std::int64_t row) {
  for (int l = 0; l < static_cast<int>(sch.lanes.size()); ++l) {
    const KvLane& lane = sch.lanes[l];
    if (row >= lane.row_begin && row < lane.row_end) return sch.k_row(l) + (row - lane.row_begin);
  }
  throw Error("own_block_key_row: row outside every lane");
}

}  // namespace rb::ring
