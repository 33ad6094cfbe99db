// ring: one lane, the whole block, moving forward. At step j rank r attends to the block that
// started on rank (r - j) mod c, which arrived from rank r-1 during step j-1 while r computed.
// Traffic per rank: it receives every other rank's block once, (S - tokens_r) · kv_bytes_per_token,
// i.e. (c-1)/c of the sequence's K/V for equal shards, in c-1 point-to-point transfers on the link
// to r+1 (one direction) that can hide behind the c-1 earlier steps' compute.
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

}  // namespace rb::ring
