// The document mask's pieces and counts (see document_mask.hpp).
#include "common/document_mask.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/documents.hpp"
#include "common/error.hpp"

namespace rb {
namespace {

// Smallest i in [0, s.count] with s.pos(i) >= bound.
std::int64_t first_at_least(const Segment& s, std::int64_t bound) {
  if (s.start >= bound) return 0;
  return std::min(s.count, (bound - s.start + s.stride - 1) / s.stride);
}

// Smallest i >= from with v[i] > x (v sorted; v.size() when none), by doubling steps from `from`:
// O(log) of the distance walked, so a cursor that jumps over many documents stays cheap.
std::size_t gallop_past(const std::vector<std::int64_t>& v, std::size_t from, std::int64_t x) {
  const std::size_t n = v.size();
  std::size_t lo = from, step = 1;
  while (lo + step <= n && v[lo + step - 1] <= x) {
    lo += step;
    step *= 2;
  }
  const std::size_t hi = std::min(n, lo + step);
  return static_cast<std::size_t>(std::upper_bound(v.begin() + static_cast<std::ptrdiff_t>(lo),
                                                   v.begin() + static_cast<std::ptrdiff_t>(hi), x) -
                                  v.begin());
}

// Calls emit(MaskedPair) for every piece DocumentMask::pairs lists, in its order: query segment,
// then key segment, then document.
template <typename Emit>
void for_each_piece(const DocumentMask& m, const SegmentList& qs, const DocumentMask::SpanIndex& qi,
                    const SegmentList& ks, const DocumentMask::SpanIndex& ki, bool causal, Emit&& emit) {
  // Either side in no document: no piece (padding rows of a doc-zigzag rank, a block of padding).
  if (qi.active.empty() || ki.active.empty()) return;
  const auto& kspan = ki.span;
  const auto& order = ki.by_first;
  std::vector<int> hits;
  std::size_t before = 0;  // keys that start before the last query's q1: a cursor while queries go forward
  int last_q1 = 0;
  for (const int a : qi.active) {
    // Named copies, not a structured binding: clang before 16 cannot capture a binding in a lambda.
    const int q0 = qi.span[static_cast<std::size_t>(a)].first, q1 = qi.span[static_cast<std::size_t>(a)].second;
    // The keys that start before q1 (order is by first document), walked back while any of them
    // may still reach past q0. The cursor gallops forward from the last query's (a step of a few
    // documents costs a few probes, as the walk it replaced did) and is searched for afresh when a
    // query goes back (a head exchange's group rows).
    auto starts_before = [&](int b) { return kspan[b].first < q1; };
    std::size_t lo = q1 < last_q1 ? 0 : before, step = 1;
    while (lo + step <= order.size() && starts_before(order[lo + step - 1])) {
      lo += step;
      step *= 2;
    }
    const std::size_t end = std::min(order.size(), lo + step);
    before = static_cast<std::size_t>(std::partition_point(order.begin() + static_cast<std::ptrdiff_t>(lo),
                                                           order.begin() + static_cast<std::ptrdiff_t>(end),
                                                           starts_before) -
                                      order.begin());
    last_q1 = q1;
    hits.clear();
    for (auto i = static_cast<std::ptrdiff_t>(before) - 1; i >= 0 && ki.reach[static_cast<std::size_t>(i)] > q0; --i) {
      const int b = order[static_cast<std::size_t>(i)];
      if (kspan[b].second > q0) hits.push_back(b);
    }
    std::sort(hits.begin(), hits.end());
    for (const int b : hits) {
      // The documents both segments hold a position of, in order: each side jumps to the other's
      // next one (two strided segments of a striped split share one document in c).
      // A side with no position in d jumps to its next document that has one.
      const int hi = std::min(q1, kspan[b].second);
      for (int d = std::max(q0, kspan[b].first); d < hi;) {
        const SegmentRun q = m.clip(qs[a], d);
        if (q.seg.count == 0) {
          d = m.next_holding(qs[a], d + 1, hi);
          continue;
        }
        const SegmentRun k = m.clip(ks[b], d);
        if (k.seg.count == 0) {
          d = m.next_holding(ks[b], d + 1, hi);
          continue;
        }
        const MaskClass cls = classify(q.seg, k.seg, causal);
        if (cls != MaskClass::skip) emit(MaskedPair{a, b, d, cls, unmasked_pairs(q.seg, k.seg, causal)});
        ++d;
      }
    }
  }
}

// Without documents: every segment pair (§3), skip pairs included.
template <typename Emit>
void for_each_pair(const SegmentList& qs, const SegmentList& ks, bool causal, Emit&& emit) {
  const int nq = static_cast<int>(qs.size()), nk = static_cast<int>(ks.size());
  for (int a = 0; a < nq; ++a)
    for (int b = 0; b < nk; ++b)
      emit(MaskedPair{a, b, -1, classify(qs[a], ks[b], causal), unmasked_pairs(qs[a], ks[b], causal)});
}

}  // namespace

DocumentMask::DocumentMask(std::vector<std::int64_t> begins, std::vector<std::int64_t> ends)
    : begins_(std::move(begins)), ends_(std::move(ends)) {
  if (begins_.size() != ends_.size()) throw Error("DocumentMask: begins and ends differ in number");
  for (std::size_t i = 0; i < begins_.size(); ++i)
    if (begins_[i] < 0 || ends_[i] <= begins_[i] || (i > 0 && begins_[i] < ends_[i - 1]))
      throw Error(fmt::format("DocumentMask: document {} [{}, {}) is empty, negative or overlaps the one before", i,
                              begins_[i], ends_[i]));
}

DocumentMask DocumentMask::of(const Config& cfg) {
  if (!cfg.documents.given()) return {};
  const auto extents = document_extents(cfg);
  std::vector<std::int64_t> begins, ends;
  begins.reserve(extents.size());
  ends.reserve(extents.size());
  std::int64_t at = 0;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    begins.push_back(at);
    ends.push_back(at + cfg.documents.lengths[i]);
    at += extents[i];
  }
  return DocumentMask(std::move(begins), std::move(ends));
}

std::pair<int, int> DocumentMask::overlapping(std::int64_t lo, std::int64_t hi) const {
  const auto first = std::upper_bound(ends_.begin(), ends_.end(), lo) - ends_.begin();
  const auto last = std::upper_bound(begins_.begin(), begins_.end(), hi) - begins_.begin();
  return {static_cast<int>(first), static_cast<int>(std::max(first, last))};
}

std::vector<std::pair<int, int>> DocumentMask::spans(const SegmentList& segs) const {
  std::vector<std::pair<int, int>> out(segs.size(), {0, 0});
  // Cursors that walk forward while the segments do (the splits' lists are in position order); a
  // segment that starts or ends before the last one is searched for instead.
  std::size_t first = 0, last = 0;
  std::int64_t prev_lo = -1, prev_hi = -1;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const Segment& s = segs[i];
    if (s.count <= 0) continue;
    const std::int64_t lo = s.first(), hi = s.last();
    first = gallop_past(ends_, lo < prev_lo ? 0 : first, lo);
    last = gallop_past(begins_, hi < prev_hi ? 0 : last, hi);
    prev_lo = lo;
    prev_hi = hi;
    out[i] = {static_cast<int>(first), static_cast<int>(std::max(first, last))};
  }
  return out;
}

bool DocumentMask::holds(std::int64_t p) const {
  if (!active()) return true;
  const auto [d0, d1] = overlapping(p, p);
  return d0 < d1;
}

SegmentRun DocumentMask::clip(const Segment& s, int d) const {
  const std::int64_t i0 = first_at_least(s, begin(d)), i1 = first_at_least(s, end(d));
  return {Segment{s.pos(i0), s.stride, std::max<std::int64_t>(i1 - i0, 0)}, i0};
}

DocumentMask::SpanIndex DocumentMask::index(const SegmentList& segs) const {
  SpanIndex x;
  x.span = spans(segs);
  for (int i = 0; i < static_cast<int>(segs.size()); ++i)
    if (x.span[static_cast<std::size_t>(i)].first < x.span[static_cast<std::size_t>(i)].second) x.active.push_back(i);
  // The splits' lists come in order of their first document already; a head exchange's group rows
  // (member after member) need the sort.
  x.by_first = x.active;
  auto by_first = [&](int a, int b) { return x.span[a].first < x.span[b].first; };
  if (!std::is_sorted(x.by_first.begin(), x.by_first.end(), by_first))
    std::stable_sort(x.by_first.begin(), x.by_first.end(), by_first);
  x.reach.resize(x.by_first.size());
  for (std::size_t i = 0; i < x.by_first.size(); ++i)
    x.reach[i] = std::max(i ? x.reach[i - 1] : 0, x.span[static_cast<std::size_t>(x.by_first[i])].second);
  return x;
}

int DocumentMask::next_holding(const Segment& s, int d, int hi) const {
  if (s.stride == 1 || d >= hi) return d;  // a run holds a position of every document its range meets
  while (d < hi) {
    const std::int64_t i = first_at_least(s, begins_[static_cast<std::size_t>(d)]);
    if (i >= s.count) return hi;
    const std::int64_t p = s.pos(i);
    if (p < ends_[static_cast<std::size_t>(d)]) return d;  // the common case: a position in d itself
    d = static_cast<int>(gallop_past(ends_, static_cast<std::size_t>(d), p));  // the first document ending after p
    if (d < hi && begins_[static_cast<std::size_t>(d)] <= p) return d;
  }
  return hi;
}

std::vector<MaskedPair> DocumentMask::pairs(const SegmentList& qs, const SegmentList& ks, bool causal) const {
  if (!active()) {
    std::vector<MaskedPair> out;
    for_each_pair(qs, ks, causal, [&](const MaskedPair& p) { out.push_back(p); });
    return out;
  }
  return pairs(qs, index(qs), ks, index(ks), causal);
}

std::int64_t DocumentMask::unmasked(const SegmentList& qs, const SegmentList& ks, bool causal) const {
  if (!active()) {
    std::int64_t n = 0;
    for_each_pair(qs, ks, causal, [&](const MaskedPair& p) { n += p.unmasked; });
    return n;
  }
  return unmasked(qs, index(qs), ks, index(ks), causal);
}

std::vector<MaskedPair> DocumentMask::pairs(const SegmentList& qs, const SpanIndex& qi, const SegmentList& ks,
                                            const SpanIndex& ki, bool causal) const {
  std::vector<MaskedPair> out;
  if (!active()) {
    for_each_pair(qs, ks, causal, [&](const MaskedPair& p) { out.push_back(p); });
    return out;
  }
  for_each_piece(*this, qs, qi, ks, ki, causal, [&](const MaskedPair& p) { out.push_back(p); });
  return out;
}

std::int64_t DocumentMask::unmasked(const SegmentList& qs, const SpanIndex& qi, const SegmentList& ks,
                                    const SpanIndex& ki, bool causal) const {
  std::int64_t n = 0;
  if (!active()) {
    for_each_pair(qs, ks, causal, [&](const MaskedPair& p) { n += p.unmasked; });
    return n;
  }
  for_each_piece(*this, qs, qi, ks, ki, causal, [&](const MaskedPair& p) { n += p.unmasked; });
  return n;
}

}  // namespace rb
