// The buffers a rank's backward adds to its forward set (ring/executor/rank_buffers.hpp), for every
// backend: what each holds and how the own block's dK/dV are read back. Their sizes and layouts are
// the step program's (ring/program/backward_design.hpp and one file per dK/dV design), which
// declares them. Host code only; the buffer type is the backend's.
//
// Every design holds dO and dQ (rows, Hq, D), Δ (rows, Hq), the own block's final dK/dV (d_own,
// laid out as the own block: each lane's [dK | dV] piece where its [K | V] is) and the step's block
// gradients before the peer's partial is added (scratch); then two step buffers (reverse: fused
// [K | V | dK | dV]; follow: trailing partials; gathered: one, staging the reduce-scatter) and the
// gathered dK and dV. Under a head exchange (docs/design.md §3b) these are in the attention layout,
// and the rank also holds its shard's dO, dQ, dK and dV (every head).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/config.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "ring/plan/plan.hpp"

namespace rb::ring {

template <typename Buf>
struct BackwardBuffers {
  Buf d_o, dq, delta;
  Buf d_own;                                    // the own block's dK/dV when the backward is done
  Buf scratch;                                  // one step's block gradients
  Buf step[2];                                  // reverse: fused; follow: trailing; gathered: staging
  Buf all_dk, all_dv;                           // gathered
  Buf d_o_shard, dq_shard, dk_shard, dv_shard;  // a head exchange's

  // dO from the seed, as the reference rebuilds it (tensor 3, Hq heads): fill(buffer, offset,
  // segments, params) as RankBuffers::fill_inputs takes it. Under a head exchange the shard's,
  // which each backward's all-to-all moves into d_o.
  template <typename Fill>
  void fill_d_o(const Plan& plan, int r, DType dtype, Fill&& fill) {
    const Config& cfg = plan.config;
    const kernels::ref::FillParams fp{cfg.seed, kernels::ref::Tensor::d_o, cfg.heads, cfg.head_dim, dtype};
    fill(plan.exchange.active() ? d_o_shard : d_o, std::int64_t{0}, plan.ranks[r].segments, fp);
  }
};

// Where key row `row` of the own block (rows in segment order) sits in a block laid out as the
// own block is (its lane's piece), for reading d_own back: the K row; its V row is lane_rows after.
std::int64_t own_block_key_row(const KvSchedule& sch, std::int64_t row);

}  // namespace rb::ring
