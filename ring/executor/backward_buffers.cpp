// The sizes of a rank's backward buffers (see backward_buffers.hpp).
#include "ring/executor/backward_buffers.hpp"

#include "common/error.hpp"

namespace rb::ring {

BackwardBufferShape backward_buffer_shape(const Plan& plan, int r) {
  if (!plan.backward) throw Error("backward buffers for a plan without a backward");
  const Config& cfg = plan.config;
  const KvSchedule& fwd = plan.schedule;
  const HeadExchange& x = plan.exchange;
  const RankPlan& rp = plan.ranks.at(static_cast<std::size_t>(r));
  const std::int64_t rows = rp.attention_tokens;
  BackwardBufferShape n;
  n.row = static_cast<std::int64_t>(x.kv_heads) * cfg.head_dim;
  n.q = rows * x.q_heads * cfg.head_dim;
  n.lse = rows * x.q_heads;
  n.block = fwd.buffer_rows() * n.row;
  n.lane_rows = fwd.lane_rows;
  n.lanes = static_cast<int>(fwd.lanes.size());
  n.grads = plan.backward->grads;
  switch (n.grads) {
    case GradFlow::with_kv: n.fused = 4 * n.lanes * n.lane_rows * n.row; break;
    case GradFlow::trailing: break;
    case GradFlow::reduce_scatter: n.all = rows * x.groups * n.row; break;
  }
  // Two fused or trailing buffers in turn; the reduce-scatter receives each peer's partial in one.
  if (x.groups > 1) n.step_buffers = n.grads == GradFlow::reduce_scatter ? 1 : 2;
  if (x.active()) {
    n.shard_q = rp.tokens * cfg.heads * cfg.head_dim;
    n.shard_kv = rp.tokens * cfg.kv_heads * cfg.head_dim;
  }
  return n;
}

std::int64_t backward_elements(const BackwardBufferShape& n) {
  const std::int64_t step = n.grads == GradFlow::with_kv ? n.fused : n.block;
  return 2 * n.q + n.lse + n.block + n.scratch() + n.step_buffers * step + 2 * n.all + 2 * n.shard_q + 2 * n.shard_kv;
}

std::int64_t own_block_key_row(const KvSchedule& sch, std::int64_t row) {
  for (int l = 0; l < static_cast<int>(sch.lanes.size()); ++l) {
    const KvLane& lane = sch.lanes[l];
    if (row >= lane.row_begin && row < lane.row_end) return sch.k_row(l) + (row - lane.row_begin);
  }
  throw Error("own_block_key_row: row outside every lane");
}

}  // namespace rb::ring
