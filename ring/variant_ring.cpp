// ring: at step j rank r attends to the block that started on rank (r - j) mod c, which arrived from
// rank r-1 during step j-1 while r computed. Traffic per rank: it receives every other rank's block
// once, (S - tokens_r) * kv_bytes_per_token, i.e. (c-1)/c of the sequence's K/V for equal shards, in
// c-1 point-to-point transfers that can hide behind the c-1 earlier steps' compute.
#include "ring/variant_ring.hpp"

namespace rb::ring {

Variant VariantRing::kind() const { return Variant::ring; }

std::vector<StepPlan> VariantRing::steps(int r, const std::vector<SegmentList>& segs, bool causal,
                                         std::int64_t kvb) const {
  const int c = static_cast<int>(segs.size());
  std::vector<StepPlan> out(c);
  for (int j = 0; j < c; ++j) {
    StepPlan& s = out[j];
    s.step = j;
    const int src = ((r - j) % c + c) % c;
    s.sources = {src};
    s.recv_bytes = j == 0 ? 0 : total_count(segs[src]) * kvb;
    // During step j the rank forwards the block it holds (from (r-j) mod c) to r+1, except at the last step.
    s.send_bytes = j + 1 < c ? total_count(segs[src]) * kvb : 0;
    s.pairs = pairs_against(r, src, segs, causal);
    for (const auto& p : s.pairs) s.unmasked += p.unmasked;
  }
  return out;
}

}  // namespace rb::ring
