// Segments: arithmetic runs of global token positions (docs/design.md §2), and the mask class of a pair of
// them (docs/design.md §3). Kernels, plans and references all speak in segments, never in split schemes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace rb {

struct Segment {
  std::int64_t start = 0;   // first global position
  std::int64_t stride = 1;  // distance between consecutive positions (>= 1)
  std::int64_t count = 0;   // number of positions

  constexpr std::int64_t pos(std::int64_t i) const { return start + i * stride; }
  constexpr std::int64_t first() const { return start; }
  constexpr std::int64_t last() const { return start + (count - 1) * stride; }
  friend constexpr bool operator==(const Segment&, const Segment&) = default;
};

using SegmentList = std::vector<Segment>;

// Total positions of a list, and the local row where segment i begins (rows are laid out in list order).
std::int64_t total_count(const SegmentList& segs);
std::vector<std::int64_t> row_offsets(const SegmentList& segs);
// The positions of local rows [begin, end) of a list, as segments (a segment the range cuts is
// split): the piece of a rank's block that one lane of a schedule carries (ring/plan/plan.hpp).
SegmentList slice_rows(const SegmentList& segs, std::int64_t begin, std::int64_t end);

enum class MaskClass { full, partial, skip };
std::string_view to_string(MaskClass m);

// Class of (query segment, key segment): full when every key <= every query, skip when every key
// > every query, partial otherwise. Without a causal mask every pair is full.
MaskClass classify(const Segment& q, const Segment& k, bool causal);

// Unmasked (query, key) pairs of two segments: count of k <= q (causal) or q.count*k.count.
// Closed form (a floor sum), O(log) in the segment sizes, so plans for S = 10M and c = 1024 are cheap.
std::int64_t unmasked_pairs(const Segment& q, const Segment& k, bool causal);

}  // namespace rb
