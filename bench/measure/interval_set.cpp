// Union and intersection of time spans (see interval_set.hpp).
#include "bench/measure/interval_set.hpp"

#include <algorithm>

namespace rb::bench {
namespace {

// Appends a span that begins no earlier than the last one, merging when they overlap or touch.
void append_merging(std::vector<Span>& out, const Span& s) {
  // `<=`: touching spans merge, so back-to-back kernels count as one busy stretch, as in HTA.
  if (!out.empty() && s.begin <= out.back().end) {
    out.back().end = std::max(out.back().end, s.end);
  } else {
    out.push_back(s);
  }
}

}  // namespace

std::vector<Span> union_of(std::vector<Span> spans) {
  std::erase_if(spans, [](const Span& s) { return s.end <= s.begin; });
  // Order by begin alone is enough: the sweep below keeps the furthest end.
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  std::vector<Span> out;
  out.reserve(spans.size());
  for (const Span& s : spans) append_merging(out, s);
  return out;
}

std::vector<Span> union_of_unions(const std::vector<Span>& a, const std::vector<Span>& b) {
  std::vector<Span> out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const bool take_a = j == b.size() || (i < a.size() && a[i].begin <= b[j].begin);
    append_merging(out, take_a ? a[i++] : b[j++]);
  }
  return out;
}

std::int64_t total_length(const std::vector<Span>& disjoint) {
  std::int64_t t = 0;
  for (const Span& s : disjoint) t += s.end - s.begin;
  return t;
}

std::int64_t intersection_length(const std::vector<Span>& a, const std::vector<Span>& b) {
  std::int64_t t = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t lo = std::max(a[i].begin, b[j].begin);
    const std::int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) t += hi - lo;
    // Advance whichever ends first; the other may still overlap the next span.
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return t;
}

std::vector<Span> clipped(const std::vector<Span>& spans, std::int64_t lo, std::int64_t hi) {
  std::vector<Span> out;
  out.reserve(spans.size());
  for (const Span& s : spans) {
    Span c{std::max(s.begin, lo), std::min(s.end, hi)};
    if (c.end > c.begin) out.push_back(c);
  }
  return out;
}

}  // namespace rb::bench
