// allgather (Llama 3): every rank gathers all K/V first, then attends to the whole sequence in one
// step. Traffic per rank is the same as the ring's, (S - tokens_r) * kv_bytes_per_token received
// ((c-1)/c of the K/V), but in one collective that no compute of this pass can hide.
#include "ring/variant_allgather.hpp"

namespace rb::ring {

Variant VariantAllgather::kind() const { return Variant::allgather; }

std::vector<StepPlan> VariantAllgather::steps(int r, const std::vector<SegmentList>& segs, bool causal,
                                              std::int64_t kvb) const {
  const int c = static_cast<int>(segs.size());
  StepPlan s;
  s.step = 0;
  std::int64_t others = 0;
  for (int src = 0; src < c; ++src) {
    s.sources.push_back(src);
    if (src != r) others += total_count(segs[src]);
    for (auto& p : pairs_against(r, src, segs, causal)) {
      s.unmasked += p.unmasked;
      s.pairs.push_back(p);
    }
  }
  s.recv_bytes = others * kvb;
  s.send_bytes = c > 1 ? total_count(segs[r]) * kvb * (c - 1) : 0;
  return {s};
}

}  // namespace rb::ring
