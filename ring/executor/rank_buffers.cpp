// The sizes of one rank's buffers (see rank_buffers.hpp).
#include "ring/executor/rank_buffers.hpp"

namespace rb::ring {

RankBufferShape rank_buffer_shape(const Plan& plan, int r) {
  const Config& cfg = plan.config;
  const KvSchedule& sch = plan.schedule;
  const HeadExchange& x = plan.exchange;
  const RankPlan& rp = plan.ranks.at(static_cast<std::size_t>(r));
  const std::int64_t rows = rp.attention_tokens;
  RankBufferShape n;
  n.row = static_cast<std::int64_t>(x.kv_heads) * cfg.head_dim;
  n.q = rows * x.q_heads * cfg.head_dim;
  n.lse = rows * x.q_heads;
  n.block = sch.buffer_rows() * n.row;
  n.piece = 2 * sch.lane_rows * n.row;
  n.v_offset = sch.lane_rows * n.row;
  n.half = rows * n.row;
  n.gathered = sch.gathered;
  if (sch.gathered)
    n.all_kv = n.half * x.groups;
  else  // the buffers steps 1, 2, ... read in turn
    n.step_buffers = x.groups > 2 ? 2 : x.groups > 1 ? 1 : 0;
  if (x.active()) {
    n.exchange = true;
    n.shard_q = rp.tokens * cfg.heads * cfg.head_dim;
    n.shard_kv = rp.tokens * cfg.kv_heads * cfg.head_dim;
    n.stage = rp.tokens * (x.q_heads + 2LL * x.kv_heads) * cfg.head_dim;
  }
  return n;
}

}  // namespace rb::ring
