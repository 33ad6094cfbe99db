// Variant factory, the steps every schedule yields, and the pairing of query and key segments.
#include "ring/plan/variant_scheme.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "ring/plan/head_exchange.hpp"
#include "ring/plan/variant_allgather.hpp"
#include "ring/plan/variant_hybrid.hpp"
#include "ring/plan/variant_ring.hpp"
#include "ring/plan/variant_ring_bidirectional.hpp"
#include "ring/plan/variant_ulysses.hpp"

namespace rb::ring {

std::unique_ptr<VariantScheme> make_variant_scheme(Variant kind) {
  switch (kind) {
    case Variant::ring: return std::make_unique<VariantRing>();
    case Variant::allgather: return std::make_unique<VariantAllgather>();
    case Variant::ring_bidirectional: return std::make_unique<VariantRingBidirectional>();
    case Variant::ulysses: return std::make_unique<VariantUlysses>();
    case Variant::hybrid: return std::make_unique<VariantHybrid>();
  }
  throw Error("unknown variant");
}

HeadExchange VariantScheme::head_exchange(const Config& cfg, std::int64_t /*shard_rows*/) const {
  return no_head_exchange(cfg);
}

BackwardSchedule rotating_backward(const KvSchedule& forward, Dkv dkv, DType dtype) {
  BackwardSchedule b;
  b.kv = forward;
  if (dkv == Dkv::reverse) {
    for (auto& lane : b.kv.lanes) lane.direction = -lane.direction;
    b.kv.start = 1;  // step 0 holds what the forward's step c - 1 held: origin r + direction
    b.grads = GradFlow::with_kv;
    b.grad_element_bytes = dtype_bytes(dtype);
  } else {
    b.grads = GradFlow::trailing;
    b.grad_element_bytes = std::max(4, dtype_bytes(dtype));
  }
  return b;
}

std::vector<StepPlan> schedule_steps(const KvSchedule& sch, int r, const std::vector<SegmentList>& segs, bool causal,
                                     std::int64_t kvb, const DocumentMask& docs) {
  const int c = static_cast<int>(segs.size());
  if (sch.gathered) {
    // One step against every rank's block; it receives every block but its own, and sends its
    // own to every other rank.
    StepPlan s;
    for (int src = 0; src < c; ++src) {
      s.sources.push_back(src);
      if (src != r) s.recv_bytes += total_count(segs[src]) * kvb;
      for (auto& p : pairs_against(segs[r], src, segs[src], causal, 0, docs)) s.pairs.push_back(p);
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
      for (auto& p : pairs_against(segs[r], src, keys, causal, l, docs)) s.pairs.push_back(p);
    }
    for (const auto& p : s.pairs) s.unmasked += p.unmasked;
  }
  return out;
}

BackwardRankPlan backward_steps(const BackwardSchedule& b, int r, const std::vector<SegmentList>& segs, bool causal,
                                std::int64_t kvb, std::int64_t gradb, const DocumentMask& docs) {
  const int c = static_cast<int>(segs.size());
  BackwardRankPlan out;
  if (b.kv.gathered) {
    // The gather as in the forward, then the reduce-scatter: every other rank's partial dK/dV of
    // this rank's block arrive, and this rank's partials of theirs leave.
    out.steps = schedule_steps(b.kv, r, segs, causal, kvb, docs);
    std::int64_t others = 0;
    for (int s = 0; s < c; ++s)
      if (s != r) others += total_count(segs[s]);
    out.tail_recv_bytes = (c - 1) * total_count(segs[r]) * gradb;
    out.tail_send_bytes = others * gradb;
  } else {
    // The K/V steps of the backward's own schedule; step j >= 1 also adds the partial dK/dV of its
    // block that a peer computed (reverse: in the K/V message; follow: the trailing hop). Shards
    // are equal, so what a rank sends for a peer's step j is what it receives for its own.
    out.steps = schedule_steps(b.kv, r, segs, causal, kvb, docs);
    for (auto& st : out.steps) {
      st.send_bytes = st.recv_bytes;  // schedule_steps counts the forward's sends, one step earlier
      if (st.step == 0) continue;
      for (int l = 0; l < static_cast<int>(b.kv.lanes.size()); ++l) {
        const KvLane& lane = b.kv.lanes[l];
        const std::int64_t bytes =
            total_count(slice_rows(segs[b.kv.origin(r, l, st.step, c)], lane.row_begin, lane.row_end)) * gradb;
        st.grad_recv_bytes += bytes;
        st.recv_bytes += bytes;
        st.send_bytes += bytes;
      }
    }
    if (b.grads == GradFlow::trailing && c > 1) {
      out.tail_recv_bytes = total_count(segs[r]) * gradb;  // the own block's dK/dV, summed over the ring
      out.tail_send_bytes = out.tail_recv_bytes;
    }
  }
  out.recv_bytes = out.tail_recv_bytes;
  out.send_bytes = out.tail_send_bytes;
  for (const auto& st : out.steps) {
    out.recv_bytes += st.recv_bytes;
    out.send_bytes += st.send_bytes;
  }
  return out;
}

std::vector<PlannedPair> pairs_against(const SegmentList& qs, int src, const SegmentList& ks, bool causal, int lane,
                                       const DocumentMask& docs) {
  std::vector<PlannedPair> out;
  for (const MaskedPair& p : docs.pairs(qs, ks, causal))
    out.push_back(PlannedPair{p.q_seg, src, p.k_seg, lane, p.mask, p.doc, p.unmasked});
  return out;
}

}  // namespace rb::ring
