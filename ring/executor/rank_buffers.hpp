// The buffers one rank holds, on every backend: the CPU executor's host vectors and a CudaRank's
// device buffers are the same set, sized, filled and read by the rules here, so the CPU tests check
// the layout the GPU runs. Host code only; the buffer type is the backend's.
//
// A rotating schedule double-buffers K/V: step 0 attends to the rank's own block, step j >= 1 to
// step buffer j % 2, which the transfer issued during step j-1 filled (the step program's
// dependencies say when it may: ring/program/). A gathered schedule attends once to every rank's K and V side by side.
// Under a head exchange (docs/design.md §3b) Q, O and the blocks are in the attention layout (the
// group's rows, the rank's heads), and the rank also holds its shard's Q, K, V (every head), which
// the all-to-all moves into that layout, its shard's O, which the one after the last merge fills,
// and the staging of one all-to-all message each way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/config.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "ring/plan/plan.hpp"

namespace rb::ring {

// Element counts and offsets of rank r's buffers for a plan (ring/plan/plan.hpp).
struct RankBufferShape {
  std::int64_t row = 0;       // one K or V row: kv_heads·D (Hkv without an exchange)
  std::int64_t q = 0;         // Q, and each O (partial, accumulated): (rows, q_heads, D)
  std::int64_t lse = 0;       // each LSE (partial, accumulated): (rows, q_heads)
  std::int64_t block = 0;     // the own block and each step buffer: every lane's [K | V] piece
  std::int64_t piece = 0;     // one lane's [K | V] piece, contiguous in a block
  std::int64_t v_offset = 0;  // from a block's K rows to its V rows, for every lane at once
  std::int64_t half = 0;      // one rank's K, or V: (rows, Hkv, D), its slot in the gathered K/V
  bool gathered = false;      // the schedule gathers every block (else it rotates pieces)
  std::int64_t all_kv = 0;    // gathered: the gathered K, and V, each (c·rows, Hkv, D)
  int step_buffers = 0;       // rotating: 2 from 3 members; with 2 one (buffer 1); none alone
  // A head exchange's (else 0): the shard's Q and O (shard rows, Hq, D), its K and V each (shard
  // rows, Hkv, D), and one all-to-all message, the largest of Q, K, V and of O.
  bool exchange = false;
  std::int64_t shard_q = 0, shard_kv = 0, stage = 0;

  // Where lane l's piece starts in a block: its K rows, KvSchedule::k_row(l).
  std::int64_t piece_offset(int lane) const { return lane * piece; }
};

RankBufferShape rank_buffer_shape(const Plan& plan, int r);

// The buffer set of one rank; Kv holds Q and K/V elements, Acc the O and LSE accumulators (the CPU:
// std::vector<T> for both; CUDA: device bf16 and float). Kv(n) and Acc(n) allocate n elements.
template <typename Kv, typename Acc>
struct RankBuffers {
  Kv q, own;              // own: every lane's [K (lane_rows, Hkv, D) | V (lane_rows, Hkv, D)]
  Kv buf[2];              // rotating: the step buffers, laid out as own
  Kv all_k, all_v;        // gathered: (c·rows, Hkv, D)
  Acc o_part, o_acc;      // (rows, Hq, D)
  Acc lse_part, lse_acc;  // (rows, Hq)
  // A head exchange's: the shard's inputs and output, and the staging of one message each way.
  Kv q_shard, k_shard, v_shard;
  Acc o_shard;
  Kv stage_send, stage_recv;

  // Q and the own block (under a head exchange: the shard's Q, K and V too), which the caller fills
  // (fill_inputs) before allocate_working.
  void allocate_inputs(const RankBufferShape& n) {
    q = Kv(size(n.q));
    own = Kv(size(n.block));
    if (n.exchange) {
      q_shard = Kv(size(n.shard_q));
      k_shard = Kv(size(n.shard_kv));
      v_shard = Kv(size(n.shard_kv));
    }
  }
  // The partial and accumulated O and LSE, then the gathered K/V or the step buffers there are
  // steps for; the caller places its own slot in the gathered K/V (RankBufferShape::half).
  void allocate_working(const RankBufferShape& n) {
    o_part = Acc(size(n.q));
    o_acc = Acc(size(n.q));
    lse_part = Acc(size(n.lse));
    lse_acc = Acc(size(n.lse));
    if (n.exchange) {
      o_shard = Acc(size(n.shard_q));
      stage_send = Kv(size(n.stage));
      stage_recv = Kv(size(n.stage));
    }
    if (n.gathered) {
      all_k = Kv(size(n.all_kv));
      all_v = Kv(size(n.all_kv));
      return;
    }
    if (n.step_buffers >= 1) buf[1] = Kv(size(n.block));
    if (n.step_buffers >= 2) buf[0] = Kv(size(n.block));
  }

  // Q and the own block's K and V from the seed (kernels/fill_inputs_ref.hpp), in `dtype`'s
  // precision, as the reference rebuilds them: fill(buffer, offset, segments, params) writes the
  // values of `segments` at element `offset` of `buffer`. Under a head exchange the shard's Q, K
  // and V, every head, which each pass's all-to-all moves into Q and the own block.
  template <typename Fill>
  void fill_inputs(const Plan& plan, int r, DType dtype, const RankBufferShape& n, Fill&& fill) {
    const Config& cfg = plan.config;
    kernels::ref::FillParams fp{cfg.seed, kernels::ref::Tensor::q, cfg.heads, cfg.head_dim, dtype};
    if (n.exchange) {
      const SegmentList& shard = plan.ranks[r].segments;
      fill(q_shard, std::int64_t{0}, shard, fp);
      fp.heads = cfg.kv_heads;
      fp.tensor = kernels::ref::Tensor::k;
      fill(k_shard, std::int64_t{0}, shard, fp);
      fp.tensor = kernels::ref::Tensor::v;
      fill(v_shard, std::int64_t{0}, shard, fp);
      return;
    }
    fill(q, std::int64_t{0}, plan.ranks[r].segments, fp);
    fp.heads = cfg.kv_heads;
    for (const auto& piece : plan.block_pieces(r)) {
      fp.tensor = kernels::ref::Tensor::k;
      fill(own, piece.k_row * n.row, piece.segments, fp);
      fp.tensor = kernels::ref::Tensor::v;
      fill(own, piece.v_row * n.row, piece.segments, fp);
    }
  }

  // The block step j of a rotating schedule attends to, and the transfer issued during step j-1
  // fills: the own block at step 0, then the two step buffers in turn.
  Kv& step_buffer(int j) { return j == 0 ? own : buf[j % 2]; }
  const Kv& step_buffer(int j) const { return j == 0 ? own : buf[j % 2]; }

 private:
  static std::size_t size(std::int64_t n) { return static_cast<std::size_t>(n); }
};

}  // namespace rb::ring
