// Variant factory and the pairing of one rank's query segments with another rank's key segments.
#include "ring/variant_scheme.hpp"

#include "ring/variant_allgather.hpp"
#include "ring/variant_ring.hpp"

namespace rb::ring {

std::unique_ptr<VariantScheme> make_variant_scheme(Variant kind) {
  if (kind == Variant::allgather) return std::make_unique<VariantAllgather>();
  return std::make_unique<VariantRing>();
}

std::vector<PlannedPair> pairs_against(int r, int src, const std::vector<SegmentList>& segs, bool causal) {
  std::vector<PlannedPair> out;
  const auto& qs = segs[r];
  const auto& ks = segs[src];
  for (int a = 0; a < static_cast<int>(qs.size()); ++a)
    for (int b = 0; b < static_cast<int>(ks.size()); ++b)
      out.push_back(PlannedPair{a, src, b, classify(qs[a], ks[b], causal), unmasked_pairs(qs[a], ks[b], causal)});
  return out;
}

}  // namespace rb::ring
