// allgather (Llama 3): every rank gathers all K/V first, then attends to the whole sequence in one
// step. Traffic per rank is the same as the ring's, (S - tokens_r) · kv_bytes_per_token received
// ((c-1)/c of the K/V), but in one collective that no compute of this pass can hide.
// Backward (Llama 3, TransformerEngine's all_gather, ring-flash-attn's llama3): K/V are gathered
// again, one step computes dK/dV of every block, and a reduce-scatter sums each block's partials at
// its owner, in the run's dtype: (c-1)·B gathered and (c-1)·B of dK/dV received, twice the forward,
// all of it exposed. `--dkv` has nothing to choose here.
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

BackwardSchedule VariantAllgather::backward(int c, std::int64_t rows, Dkv /*dkv*/, DType dtype) const {
  BackwardSchedule b;
  b.kv = schedule(c, rows);
  b.grads = GradFlow::reduce_scatter;
  b.grad_element_bytes = dtype_bytes(dtype);
  return b;
}

}  // namespace rb::ring
