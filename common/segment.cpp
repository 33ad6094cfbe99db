// Segment arithmetic: mask classes and the exact count of unmasked pairs.
#include "common/segment.hpp"

#include <algorithm>
#include <utility>

namespace rb {
namespace {

// 128-bit intermediates: a*n and the partial sums reach (10M)^2 * stride before reduction.
__extension__ typedef __int128 i128;

// sum_{i=0}^{n-1} floor((a*i + b) / m) for n, m > 0 and a, b >= 0 (the classic Euclid-like recursion).
std::int64_t floor_sum(std::int64_t n, std::int64_t m, std::int64_t a, std::int64_t b) {
  i128 ans = 0;
  i128 N = n, M = m, A = a, B = b;
  while (true) {
    if (A >= M) {
      ans += (N - 1) * N / 2 * (A / M);
      A %= M;
    }
    if (B >= M) {
      ans += N * (B / M);
      B %= M;
    }
    i128 y_max = A * N + B;
    if (y_max < M) break;
    N = y_max / M;
    B = y_max % M;
    std::swap(M, A);
  }
  return static_cast<std::int64_t>(ans);
}

// Smallest i >= 0 with start + i*stride >= bound (stride >= 1).
std::int64_t first_index_at_least(const Segment& s, std::int64_t bound) {
  if (s.start >= bound) return 0;
  return (bound - s.start + s.stride - 1) / s.stride;
}

}  // namespace

std::int64_t total_count(const SegmentList& segs) {
  std::int64_t n = 0;
  for (const auto& s : segs) n += s.count;
  return n;
}

SegmentList slice_rows(const SegmentList& segs, std::int64_t begin, std::int64_t end) {
  SegmentList out;
  std::int64_t row = 0;  // local row where the current segment begins
  for (const auto& s : segs) {
    const std::int64_t a = std::max(begin, row), b = std::min(end, row + s.count);
    if (a < b) out.push_back(Segment{s.pos(a - row), s.stride, b - a});
    row += s.count;
  }
  return out;
}

std::vector<std::int64_t> row_offsets(const SegmentList& segs) {
  std::vector<std::int64_t> off(segs.size());
  std::int64_t n = 0;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    off[i] = n;
    n += segs[i].count;
  }
  return off;
}

std::string_view to_string(MaskClass m) {
  switch (m) {
    case MaskClass::full: return "full";
    case MaskClass::partial: return "partial";
    case MaskClass::skip: return "skip";
  }
  return "?";
}

MaskClass classify(const Segment& q, const Segment& k, bool causal) {
  if (!causal) return MaskClass::full;
  if (q.count == 0 || k.count == 0) return MaskClass::skip;
  if (k.last() <= q.first()) return MaskClass::full;
  if (k.first() > q.last()) return MaskClass::skip;
  return MaskClass::partial;
}

std::int64_t unmasked_pairs(const Segment& q, const Segment& k, bool causal) {
  if (q.count <= 0 || k.count <= 0) return 0;
  if (!causal) return q.count * k.count;
  // For query i, the keys at or before it number f(i) = clamp(floor((q.pos(i) - k.start)/k.stride) + 1, 0, k.count).
  // f is non-decreasing: zero below lo, k.count from hi on, a floor sum in between.
  const std::int64_t lo = std::min(first_index_at_least(q, k.start), q.count);
  const std::int64_t hi = std::min(std::max(first_index_at_least(q, k.last()), lo), q.count);
  std::int64_t total = (q.count - hi) * k.count;
  if (hi > lo) {
    const std::int64_t b = q.pos(lo) - k.start;  // >= 0 by the choice of lo
    total += floor_sum(hi - lo, k.stride, q.stride, b) + (hi - lo);
  }
  return total;
}

}  // namespace rb
