// Unions and intersections of half-open time spans [begin, end) in ns: the interval arithmetic
// under every metric of docs/design.md §6. Kept apart from the metrics so the property tests can check it
// against a brute-force count on its own.
#pragma once

#include <cstdint>
#include <vector>

namespace rb::bench {

struct Span {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  friend bool operator==(const Span&, const Span&) = default;
};

// Sorted, disjoint, non-touching spans: spans that overlap or touch (a.end == b.begin) become one,
// empty spans (end <= begin) vanish. O(n log n).
std::vector<Span> union_of(std::vector<Span> spans);

// The union of two unions, by merging them in O(|a| + |b|) instead of sorting again.
std::vector<Span> union_of_unions(const std::vector<Span>& a, const std::vector<Span>& b);

// Total length of a union (or of any disjoint set).
std::int64_t total_length(const std::vector<Span>& disjoint);

// |a ∩ b| of two unions, by one merge-like sweep: O(|a| + |b|).
std::int64_t intersection_length(const std::vector<Span>& a, const std::vector<Span>& b);

// Spans clipped to [lo, hi); spans wholly outside become empty and are dropped.
std::vector<Span> clipped(const std::vector<Span>& spans, std::int64_t lo, std::int64_t hi);

}  // namespace rb::bench
