// The sizes of one rank's buffers (see rank_buffers.hpp).
#include "ring/executor/rank_buffers.hpp"

namespace rb::ring {

RankBufferShape rank_buffer_shape(const Plan& plan, int r) {
  const Config& cfg = plan.config;
  const KvSchedule& sch = plan.schedule;
  const std::int64_t rows = plan.ranks.at(static_cast<std::size_t>(r)).tokens;
  RankBufferShape n;
  n.row = static_cast<std::int64_t>(cfg.kv_heads) * cfg.head_dim;
  n.q = rows * cfg.heads * cfg.head_dim;
  n.lse = rows * cfg.heads;
  n.block = sch.buffer_rows() * n.row;
  n.piece = 2 * sch.lane_rows * n.row;
  n.v_offset = sch.lane_rows * n.row;
  n.half = rows * n.row;
  n.gathered = sch.gathered;
  if (sch.gathered)
    n.all_kv = n.half * cfg.cp;
  else
    n.step_buffers = cfg.cp > 2 ? 2 : cfg.cp > 1 ? 1 : 0;  // the buffers steps 1, 2, ... read in turn
  return n;
}

}  // namespace rb::ring
