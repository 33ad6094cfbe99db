// Variant factory, the steps every schedule yields, and the pairing of query and key segments.
#include "ring/plan/variant_scheme.hpp"

#include <algorithm>
#include <optional>

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
    b.grads_hop_home = true;
  }
  return b;
}

StepKeys::StepKeys(const KvSchedule& sch, const std::vector<SegmentList>& segs, const DocumentMask& docs) {
  const auto c = segs.size();
  lanes_ = sch.gathered ? 1 : sch.lanes.size();
  // Reserved, so the pointers into them stay put.
  owned_.reserve(c * lanes_);
  if (docs.active()) {
    row_index_.reserve(c);
    owned_index_.reserve(c * lanes_);
    for (const auto& rows : segs) row_index_.push_back(docs.index(rows));
  }
  for (std::size_t o = 0; o < c; ++o) {
    const std::int64_t rows = total_count(segs[o]);
    for (std::size_t l = 0; l < lanes_; ++l) {
      const SegmentList* keys = &segs[o];
      const DocumentMask::SpanIndex* index = docs.active() ? &row_index_[o] : nullptr;
      const KvLane* lane = sch.gathered ? nullptr : &sch.lanes[l];
      // A lane that carries the whole block (the ring's one lane) reads the member's rows as they are.
      if (lane && (lane->row_begin > 0 || lane->row_end < rows)) {
        keys = &owned_.emplace_back(slice_rows(segs[o], lane->row_begin, lane->row_end));
        if (docs.active()) index = &owned_index_.emplace_back(docs.index(*keys));
      }
      keys_.push_back(keys);
      key_index_.push_back(index);
      tokens_.push_back(total_count(*keys));
    }
  }
}

namespace {

// Pairs of member r's rows with the keys of (src, lane), through the kept indexes under documents.
void add_pairs(std::vector<PlannedPair>& out, const StepKeys& k, int r, const std::vector<SegmentList>& segs, int src,
               int lane, bool causal, const DocumentMask& docs) {
  const SegmentList& keys = k.keys(src, lane);
  const auto pieces = docs.active() ? docs.pairs(segs[r], k.row_index(r), keys, k.key_index(src, lane), causal)
                                    : docs.pairs(segs[r], keys, causal);
  out.reserve(out.size() + pieces.size());
  for (const MaskedPair& p : pieces) out.push_back(PlannedPair{p.q_seg, src, p.k_seg, lane, p.mask, p.doc, p.unmasked});
}

}  // namespace

std::vector<StepPlan> schedule_steps(const KvSchedule& sch, int r, const std::vector<SegmentList>& segs, bool causal,
                                     std::int64_t kvb, const DocumentMask& docs, const StepKeys* shared) {
  const int c = static_cast<int>(segs.size());
  std::optional<StepKeys> own;
  if (!shared) shared = &own.emplace(sch, segs, docs);
  const StepKeys& k = *shared;
  if (sch.gathered) {
    // One step against every rank's block; it receives every block but its own, and sends its
    // own to every other rank.
    StepPlan s;
    for (int src = 0; src < c; ++src) {
      s.sources.push_back(src);
      if (src != r) s.recv_bytes += k.tokens(src, 0) * kvb;
      add_pairs(s.pairs, k, r, segs, src, 0, causal, docs);
    }
    s.send_bytes = c > 1 ? k.tokens(r, 0) * kvb * (c - 1) : 0;
    for (const auto& p : s.pairs) s.unmasked += p.unmasked;
    return {s};
  }
  std::vector<StepPlan> out(static_cast<std::size_t>(sch.steps));
  for (int j = 0; j < sch.steps; ++j) {
    StepPlan& s = out[j];
    s.step = j;
    for (int l = 0; l < static_cast<int>(sch.lanes.size()); ++l) {
      const int src = sch.origin(r, l, j, c);
      const std::int64_t bytes = k.tokens(src, l) * kvb;
      s.sources.push_back(src);
      if (j > 0) s.recv_bytes += bytes;
      // During step j the rank forwards the piece it holds, except at the last step.
      if (sch.moves(j, c)) s.send_bytes += bytes;
      add_pairs(s.pairs, k, r, segs, src, l, causal, docs);
    }
    for (const auto& p : s.pairs) s.unmasked += p.unmasked;
  }
  return out;
}

BackwardRankPlan backward_steps(const BackwardSchedule& b, int r, const std::vector<SegmentList>& segs, bool causal,
                                std::int64_t kvb, std::int64_t gradb, const DocumentMask& docs,
                                const StepKeys* shared) {
  const int c = static_cast<int>(segs.size());
  std::optional<StepKeys> own;
  if (!shared) shared = &own.emplace(b.kv, segs, docs);
  BackwardRankPlan out;
  if (b.kv.gathered) {
    // The gather as in the forward, then the reduce-scatter: every other rank's partial dK/dV of
    // this rank's block arrive, and this rank's partials of theirs leave.
    out.steps = schedule_steps(b.kv, r, segs, causal, kvb, docs, shared);
    std::int64_t others = 0;
    for (int s = 0; s < c; ++s)
      if (s != r) others += total_count(segs[s]);
    out.tail_recv_bytes = (c - 1) * total_count(segs[r]) * gradb;
    out.tail_send_bytes = others * gradb;
  } else {
    // The K/V steps of the backward's own schedule; step j >= 1 also adds the partial dK/dV of its
    // block that a peer computed (reverse: in the K/V message; follow: the trailing hop). Shards
    // are equal, so what a rank sends for a peer's step j is what it receives for its own.
    out.steps = schedule_steps(b.kv, r, segs, causal, kvb, docs, shared);
    for (auto& st : out.steps) {
      st.send_bytes = st.recv_bytes;  // schedule_steps counts the forward's sends, one step earlier
      if (st.step == 0) continue;
      for (int l = 0; l < static_cast<int>(b.kv.lanes.size()); ++l) {
        const std::int64_t bytes = shared->tokens(b.kv.origin(r, l, st.step, c), l) * gradb;
        st.grad_recv_bytes += bytes;
        st.recv_bytes += bytes;
        st.send_bytes += bytes;
      }
    }
    if (b.grads_hop_home && c > 1) {
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
