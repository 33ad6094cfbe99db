// ring: one lane, the whole block, moving forward. At step j rank r attends to the block that
// started on rank (r - j) mod c, which arrived from rank r-1 during step j-1 while r computed.
// Traffic per rank: it receives every other rank's block once, (S - tokens_r) · kv_bytes_per_token,
// i.e. (c-1)/c of the sequence's K/V for equal shards, in c-1 point-to-point transfers on the link
// to r+1 (one direction) that can hide behind the c-1 earlier steps' compute.
//
// Backward (docs/design.md §3a), with B = tokens_r · kv_bytes_per_token, the bytes of one block:
// - reverse (TransformerEngine): the ring turned round (to r-1), step 0 on the block the forward
//   ended on (from r+1), the own block last; c-1 messages of K/V and c-1 of dK/dV in the run's
//   dtype, fused into c messages: 2(c-1)·B received, twice the forward.
// - follow (ring-flash-attn): K/V as in the forward, (c-1)·B, and c hops of dK/dV one behind them
//   in fp32: c·B·4/e more (e: the run's element bytes), about three times the forward in bf16.
#include "ring/plan/variant_ring.hpp"

namespace rb::ring {

Variant VariantRing::kind() const { return Variant::ring; }

KvSchedule VariantRing::schedule(int c, std::int64_t rows) const {
  KvSchedule s;
  s.lanes = {KvLane{0, rows, +1}};
  s.lane_rows = rows;
  s.steps = c;
  return s;
}

BackwardSchedule VariantRing::backward(int c, std::int64_t rows, Dkv dkv, DType dtype) const {
  return rotating_backward(schedule(c, rows), dkv, dtype);
}

}  // namespace rb::ring
