// Variant factory, the steps every schedule yields, and the pairing of query and key segments.
#include "ring/plan/variant_scheme.hpp"

#include "common/error.hpp"
#include "ring/plan/variant_allgather.hpp"
#include "ring/plan/variant_ring.hpp"
#include "ring/plan/variant_ring_bidirectional.hpp"

namespace rb::ring {

std::unique_ptr<VariantScheme> make_variant_scheme(Variant kind) {
  switch (kind) {
    case Variant::ring: return std::make_unique<VariantRing>();
    case Variant::allgather: return std::make_unique<VariantAllgather>();
    case Variant::ring_bidirectional: return std::make_unique<VariantRingBidirectional>();
  }
  throw Error("unknown variant");
}

std::vector<StepPlan> schedule_steps(const KvSchedule& sch, int r, const std::vector<SegmentList>& segs, bool causal,
                                     std::int64_t kvb) {
  const int c = static_cast<int>(segs.size());
  if (sch.gathered) {
    // One step against every rank's block; it receives every block but its own, and sends its
    // own to every other rank.
    StepPlan s;
    for (int src = 0; src < c; ++src) {
      s.sources.push_back(src);
      if (src != r) s.recv_bytes += total_count(segs[src]) * kvb;
      for (auto& p : pairs_against(segs[r], src, segs[src], causal)) s.pairs.push_back(p);
    }
    s.send_bytes = c > 1 ? total_count(segs[r]) * kvb * (c - 1) : 0;
    for (const auto& p : s.pairs) s.unmasked += p.unmasked;
    return {s};
  }
  std::vector<StepPlan> out(static_cast<std::size_t>(sch.steps));
  for (int j = 0; j < sch.steps; ++j) {
    StepPlan& s = out[j];
    s.step = j;
    for (int l = 0; l < static_cast<int>(sch.lanes.size()); ++l) {
      const KvLane& lane = sch.lanes[l];
      const int src = sch.origin(r, l, j, c);
      const SegmentList keys = slice_rows(segs[src], lane.row_begin, lane.row_end);
      const std::int64_t bytes = total_count(keys) * kvb;
      s.sources.push_back(src);
      if (j > 0) s.recv_bytes += bytes;
      // During step j the rank forwards the piece it holds, except at the last step.
      if (sch.moves(j, c)) s.send_bytes += bytes;
      for (auto& p : pairs_against(segs[r], src, keys, causal, l)) s.pairs.push_back(p);
    }
    for (const auto& p : s.pairs) s.unmasked += p.unmasked;
  }
  return out;
}

std::vector<PlannedPair> pairs_against(const SegmentList& qs, int src, const SegmentList& ks, bool causal, int lane) {
  std::vector<PlannedPair> out;
  for (int a = 0; a < static_cast<int>(qs.size()); ++a)
    for (int b = 0; b < static_cast<int>(ks.size()); ++b)
      out.push_back(PlannedPair{a, src, b, lane, classify(qs[a], ks[b], causal), unmasked_pairs(qs[a], ks[b], causal)});
  return out;
}

}  // namespace rb::ring
