// allgather (Llama 3): every rank gathers all K/V first, then attends to the whole sequence in one
// step. Traffic per rank is the same as the ring's, (S - tokens_r) · kv_bytes_per_token received
// ((c-1)/c of the K/V), but in one collective that no compute of this pass can hide.
#include "ring/plan/variant_allgather.hpp"

namespace rb::ring {

Variant VariantAllgather::kind() const { return Variant::allgather; }

KvSchedule VariantAllgather::schedule(int /*c*/, std::int64_t rows) const {
  KvSchedule s;
  s.gathered = true;
  s.lanes = {KvLane{0, rows, 0}};
  s.lane_rows = rows;
  s.steps = 1;
  return s;
}

}  // namespace rb::ring
