// The buffers a rank's backward adds to its forward set (ring/executor/rank_buffers.hpp), sized and laid
// out by one rule for every backend, so the CPU tests check the layout any backend runs
// (docs/design.md §3a). Host code only; the buffer type is the backend's.
//
// Every design holds dO and dQ (rows, Hq, D), Δ (rows, Hq), the own block's final dK/dV (d_own,
// laid out as the own block: each lane's [dK | dV] piece where its [K | V] is) and the step's block
// gradients before the peer's partial is added (scratch). Then, by how dK/dV return:
// - reverse (GradFlow::with_kv): two fused step buffers, each lane's [K | V | dK | dV] side by side
//   (lane-major), so one contiguous run is the message of a lane: its K/V for the receiver's next
//   step and the partial dK/dV of the block before. Step 0 reads the forward's last step buffer,
//   which the backward never writes, so a backward can be timed again and again after one forward.
//   The scratch is laid out as a fused buffer.
// - follow (GradFlow::trailing): K/V in the forward's step buffers; two trailing buffers of the
//   own block's layout carry the partial dK/dV hop after hop.
// - gathered (GradFlow::reduce_scatter): dK and dV of every block, (c·rows, Hkv, D) each, as the
//   gathered K and V; their slices are reduce-scattered to the blocks' owners into d_own.
// Under a head exchange (docs/design.md §3b) these are in the attention layout, and the rank also
// holds its shard's dO (every head), which the all-to-all moves into d_o, and its shard's dQ, dK
// and dV, which the one after the last step fills (a replicated K/V head's summed there).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/config.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "ring/plan/plan.hpp"

namespace rb::ring {

struct BackwardBufferShape {
  std::int64_t row = 0;        // one K/V row: Hkv·D
  std::int64_t q = 0;          // dO and dQ: (rows, Hq, D)
  std::int64_t lse = 0;        // Δ: (rows, Hq)
  std::int64_t block = 0;      // d_own and the trailing buffers: the own block's layout
  std::int64_t lane_rows = 0;  // rows per lane of the schedule
  int lanes = 1;
  GradFlow grads = GradFlow::with_kv;
  std::int64_t fused = 0;  // reverse: one fused step buffer, and the scratch
  std::int64_t all = 0;    // gathered: all_dk, all_dv each (c·rows, Hkv, D)
  int step_buffers = 0;    // fused (reverse) or trailing (follow) buffers: 2 with a peer, else 0
  // A head exchange's (else 0): the shard's dO and dQ (shard rows, Hq, D), dK and dV each (shard
  // rows, Hkv, D).
  std::int64_t shard_q = 0, shard_kv = 0;

  // Reverse: where lane l's run [K | V | dK | dV] starts in a fused buffer, in rows, and its parts.
  std::int64_t fused_lane_row(int lane) const { return 4 * lane * lane_rows; }
  // The scratch's block gradients: the row a key row of lane l has (the K rows of the buffer the
  // step reads: fused under reverse, the forward's step buffer otherwise) and where dK, dV start.
  std::int64_t scratch() const { return grads == GradFlow::with_kv ? fused : grads == GradFlow::trailing ? block : 0; }
};

// Requires plan.backward.
BackwardBufferShape backward_buffer_shape(const Plan& plan, int r);

template <typename Buf>
struct BackwardBuffers {
  Buf d_o, dq, delta;
  Buf d_own;                                    // the own block's dK/dV when the backward is done
  Buf scratch;                                  // one step's block gradients
  Buf step[2];                                  // reverse: fused; follow: trailing
  Buf all_dk, all_dv;                           // gathered
  Buf d_o_shard, dq_shard, dk_shard, dv_shard;  // a head exchange's

  void allocate(const BackwardBufferShape& n) {
    if (n.shard_q > 0) {
      d_o_shard = Buf(size(n.shard_q));
      dq_shard = Buf(size(n.shard_q));
      dk_shard = Buf(size(n.shard_kv));
      dv_shard = Buf(size(n.shard_kv));
    }
    d_o = Buf(size(n.q));
    dq = Buf(size(n.q));
    delta = Buf(size(n.lse));
    d_own = Buf(size(n.block));
    scratch = Buf(size(n.scratch()));
    const std::int64_t step_size = n.grads == GradFlow::with_kv ? n.fused : n.block;
    for (int i = 0; i < n.step_buffers; ++i) step[i] = Buf(size(step_size));
    if (n.grads == GradFlow::reduce_scatter) {
      all_dk = Buf(size(n.all));
      all_dv = Buf(size(n.all));
    }
  }

  // dO from the seed, as the reference rebuilds it (tensor 3, Hq heads): fill(buffer, offset,
  // segments, params) as RankBuffers::fill_inputs takes it. Under a head exchange the shard's,
  // which each backward's all-to-all moves into d_o.
  template <typename Fill>
  void fill_d_o(const Plan& plan, int r, DType dtype, Fill&& fill) {
    const Config& cfg = plan.config;
    const kernels::ref::FillParams fp{cfg.seed, kernels::ref::Tensor::d_o, cfg.heads, cfg.head_dim, dtype};
    fill(plan.exchange.active() ? d_o_shard : d_o, std::int64_t{0}, plan.ranks[r].segments, fp);
  }

  // The buffer the design's step j >= 1 reads and the message of step j - 1 fills (reverse), or
  // where the partial of step j arrives (follow).
  Buf& step_buffer(int j) { return step[j % 2]; }

 private:
  static std::size_t size(std::int64_t n) { return static_cast<std::size_t>(n); }
};

// The bytes a rank's backward buffers take, in elements of the run's arithmetic (the CPU) for the
// memory estimate: everything BackwardBuffers::allocate makes.
std::int64_t backward_elements(const BackwardBufferShape& n);

// Where key row `row` of the own block (rows in segment order) sits in a block laid out as the
// own block is (its lane's piece), for reading d_own back: the K row; its V row is lane_rows after.
std::int64_t own_block_key_row(const KvSchedule& sch, std::int64_t row);

}  // namespace rb::ring
