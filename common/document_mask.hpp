// The document mask (docs/design.md §3c): one more mask rule beside §3's. The sequence is documents
// laid end to end; attention is causal (or, without a causal mask, full) within each document and
// nothing crosses a boundary. For a (query segment, key segment) pair the rule gives its
// within-document pieces: each segment cut to one document is still an arithmetic run, so a piece is
// two sub-segments with §3's mask class and closed-form count. Pairs are counted per (segment,
// document) run, never per token, so a plan of a thousand documents at S = 1M and c = 64 stays cheap.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "common/config.hpp"
#include "common/segment.hpp"

namespace rb {

// One piece of (query segment q_seg, key segment k_seg): the pair itself without documents (doc −1),
// or both segments cut to document `doc`. Its class and unmasked pairs are those of the two cut
// segments (classify and unmasked_pairs of common/segment.hpp).
struct MaskedPair {
  int q_seg = 0, k_seg = 0;
  int doc = -1;
  MaskClass mask = MaskClass::full;
  std::int64_t unmasked = 0;
};

// The positions of a segment inside a document, and the index of the first of them in the segment
// (its row offset within the segment's rows). Empty (count 0) when the segment has none there.
struct SegmentRun {
  Segment seg;
  std::int64_t offset = 0;
};

class DocumentMask {
 public:
  DocumentMask() = default;  // no documents: one causal sequence, §3's rule
  // Documents [begins[i], ends[i]): sorted, disjoint and non-empty. Positions in none of them
  // (padding) attend to nothing and nothing attends to them. Throws rb::Error otherwise.
  DocumentMask(std::vector<std::int64_t> begins, std::vector<std::int64_t> ends);
  // The configuration's documents at their extents (common/documents.hpp), each one's real tokens
  // first and its padding after; none without documents.
  static DocumentMask of(const Config& cfg);

  bool active() const { return !begins_.empty(); }
  int count() const { return static_cast<int>(begins_.size()); }
  std::int64_t begin(int d) const { return begins_.at(static_cast<std::size_t>(d)); }
  std::int64_t end(int d) const { return ends_.at(static_cast<std::size_t>(d)); }

  // The documents [first, last) whose range meets positions [lo, hi] (lo <= hi).
  std::pair<int, int> overlapping(std::int64_t lo, std::int64_t hi) const;
  // overlapping() of each segment's positions ({0, 0} for an empty one), walked in one pass where the
  // segments come in position order; the cursors gallop, so a list that skips documents (a zig-zag
  // rank's two chunks, a contiguous rank far into the sequence) costs O(log) per segment, not O(D).
  std::vector<std::pair<int, int>> spans(const SegmentList& segs) const;

  // A segment list's documents, found once and kept: a plan pairs each rank's rows with c blocks,
  // and finding them again for every pair made plans O(c^2 x documents) (issue 51).
  struct SpanIndex {
    std::vector<std::pair<int, int>> span;  // spans(segs)
    std::vector<int> active;                // segments whose range meets a document, in list order
    std::vector<int> by_first;              // those, stably in order of their first document
    std::vector<int> reach;                 // running maximum of their last document over by_first
  };
  SpanIndex index(const SegmentList& segs) const;
  // Whether position p is a real token: in a document, or anywhere without documents.
  bool holds(std::int64_t p) const;
  // Segment s cut to document d.
  SegmentRun clip(const Segment& s, int d) const;
  // The first document in [d, hi) that holds a position of s, or hi: d itself for a run of stride 1
  // whose range meets [d, hi); a strided segment (striped) jumps over the documents between its
  // positions instead of clipping to each.
  int next_holding(const Segment& s, int d, int hi) const;

  // The pieces of every (qs[a], ks[b]), in order of a, then b, then document. Without documents every
  // pair, skip pairs included (§3, as plans always listed them); with documents only the pieces
  // that hold an unmasked pair, found only for the segments that can share a document (a
  // doc-zigzag rank's two chunks of a document meet its peer's two chunks of the same one).
  std::vector<MaskedPair> pairs(const SegmentList& qs, const SegmentList& ks, bool causal) const;
  // The sum of their unmasked pairs, without listing them.
  std::int64_t unmasked(const SegmentList& qs, const SegmentList& ks, bool causal) const;
  // The same with both lists' indexes given: the cost is the active query segments, a binary search
  // each, and the pieces (nothing when either side meets no document).
  std::vector<MaskedPair> pairs(const SegmentList& qs, const SpanIndex& qi, const SegmentList& ks, const SpanIndex& ki,
                                bool causal) const;
  std::int64_t unmasked(const SegmentList& qs, const SpanIndex& qi, const SegmentList& ks, const SpanIndex& ki,
                        bool causal) const;

 private:
  std::vector<std::int64_t> begins_, ends_;
};

}  // namespace rb
