// The document mask's pieces and counts (see document_mask.hpp).
#include "common/document_mask.hpp"

#include <algorithm>
#include <numeric>

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

// Calls emit(MaskedPair) for every piece DocumentMask::pairs lists, in its order.
template <typename Emit>
void for_each_piece(const DocumentMask& m, const SegmentList& qs, const SegmentList& ks, bool causal, Emit&& emit) {
  const int nq = static_cast<int>(qs.size()), nk = static_cast<int>(ks.size());
  if (!m.active()) {
    for (int a = 0; a < nq; ++a)
      for (int b = 0; b < nk; ++b)
        emit(MaskedPair{a, b, -1, classify(qs[a], ks[b], causal), unmasked_pairs(qs[a], ks[b], causal)});
    return;
  }
  // The documents each segment's range meets, [d0, d1).
  const auto kspan = m.spans(ks), qspan = m.spans(qs);
  // Keys in order of their first document, with the running maximum of their last: the keys that
  // meet documents [d0, d1) are found from the ones that start before d1, walking back while any
  // earlier one may still reach past d0. The splits' lists come in that order already.
  std::vector<int> order(static_cast<std::size_t>(nk));
  std::iota(order.begin(), order.end(), 0);
  auto by_first = [&](int x, int y) { return kspan[x].first < kspan[y].first; };
  if (!std::is_sorted(order.begin(), order.end(), by_first)) std::stable_sort(order.begin(), order.end(), by_first);
  std::vector<int> reach(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    reach[i] = std::max(i ? reach[i - 1] : 0, kspan[static_cast<std::size_t>(order[i])].second);
  std::vector<int> hits;
  std::size_t before = 0;  // keys that start before the last query's d1: a cursor while queries go forward
  int last_q1 = 0;
  for (int a = 0; a < nq; ++a) {
    // Named copies, not a structured binding: clang before 16 cannot capture a binding in a lambda.
    const int q0 = qspan[static_cast<std::size_t>(a)].first, q1 = qspan[static_cast<std::size_t>(a)].second;
    if (q0 >= q1) continue;
    if (q1 < last_q1)  // a query earlier than the last: searched for
      before = static_cast<std::size_t>(std::partition_point(order.begin(), order.end(),
                                                             [&](int b) { return kspan[b].first < q1; }) -
                                        order.begin());
    while (before < order.size() && kspan[static_cast<std::size_t>(order[before])].first < q1) ++before;
    last_q1 = q1;
    hits.clear();
    for (auto i = static_cast<std::ptrdiff_t>(before) - 1; i >= 0 && reach[static_cast<std::size_t>(i)] > q0; --i) {
      const int b = order[static_cast<std::size_t>(i)];
      if (kspan[b].second > q0) hits.push_back(b);
    }
    std::sort(hits.begin(), hits.end());
    for (const int b : hits)
      for (int d = std::max(q0, kspan[b].first); d < std::min(q1, kspan[b].second); ++d) {
        const SegmentRun q = m.clip(qs[a], d), k = m.clip(ks[b], d);
        if (q.seg.count == 0 || k.seg.count == 0) continue;
        const MaskClass cls = classify(q.seg, k.seg, causal);
        if (cls == MaskClass::skip) continue;
        emit(MaskedPair{a, b, d, cls, unmasked_pairs(q.seg, k.seg, causal)});
      }
  }
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
  const auto n = begins_.size();
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const Segment& s = segs[i];
    if (s.count <= 0) continue;
    const std::int64_t lo = s.first(), hi = s.last();
    if (lo < prev_lo)
      first = static_cast<std::size_t>(std::upper_bound(ends_.begin(), ends_.end(), lo) - ends_.begin());
    while (first < n && ends_[first] <= lo) ++first;
    if (hi < prev_hi)
      last = static_cast<std::size_t>(std::upper_bound(begins_.begin(), begins_.end(), hi) - begins_.begin());
    while (last < n && begins_[last] <= hi) ++last;
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

std::vector<MaskedPair> DocumentMask::pairs(const SegmentList& qs, const SegmentList& ks, bool causal) const {
  std::vector<MaskedPair> out;
  for_each_piece(*this, qs, ks, causal, [&](const MaskedPair& p) { out.push_back(p); });
  return out;
}

std::int64_t DocumentMask::unmasked(const SegmentList& qs, const SegmentList& ks, bool causal) const {
  std::int64_t n = 0;
  for_each_piece(*this, qs, ks, causal, [&](const MaskedPair& p) { n += p.unmasked; });
  return n;
}

}  // namespace rb
