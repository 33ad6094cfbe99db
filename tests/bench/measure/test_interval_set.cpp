// Interval arithmetic against brute force: random span sets on a small integer grid, where the
// union, its runs and the intersection can be counted cell by cell.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "bench/measure/interval_set.hpp"

namespace rb::bench {
namespace {

constexpr int kIntervalGrid = 200;

std::vector<Span> random_spans(std::mt19937_64& rng, int n) {
  std::uniform_int_distribution<int> pos(0, kIntervalGrid), len(0, 30);
  std::vector<Span> v;
  for (int i = 0; i < n; ++i) {
    const int b = pos(rng);
    v.push_back({b, std::min(kIntervalGrid, b + len(rng))});  // some empty (len 0)
  }
  return v;
}

std::vector<bool> cells(const std::vector<Span>& v) {
  std::vector<bool> c(kIntervalGrid, false);
  for (const auto& s : v)
    for (auto t = s.begin; t < s.end; ++t) c[static_cast<std::size_t>(t)] = true;
  return c;
}

TEST(IntervalSet, UnionMatchesBruteForceOnRandomSets) {
  std::mt19937_64 rng(20240601);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto spans = random_spans(rng, trial % 40);
    const auto u = union_of(spans);
    const auto c = cells(spans);
    std::int64_t covered = 0;
    std::vector<Span> runs;  // maximal runs of covered cells = the union with touching merged
    for (int t = 0; t < kIntervalGrid; ++t) {
      if (!c[t]) continue;
      ++covered;
      if (!runs.empty() && runs.back().end == t) {
        runs.back().end = t + 1;
      } else {
        runs.push_back({t, t + 1});
      }
    }
    ASSERT_EQ(total_length(u), covered) << "trial " << trial;
    ASSERT_EQ(u, runs) << "trial " << trial;
  }
}

TEST(IntervalSet, IntersectionAndClipMatchBruteForceOnRandomSets) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pos(0, kIntervalGrid);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto a = random_spans(rng, trial % 25), b = random_spans(rng, (trial * 7) % 31);
    const auto ca = cells(a), cb = cells(b);
    std::int64_t both = 0;
    for (int t = 0; t < kIntervalGrid; ++t) both += (ca[t] && cb[t]) ? 1 : 0;
    ASSERT_EQ(intersection_length(union_of(a), union_of(b)), both) << "trial " << trial;

    int lo = pos(rng), hi = pos(rng);
    if (lo > hi) std::swap(lo, hi);
    std::int64_t inside = 0;
    for (int t = lo; t < hi; ++t) inside += ca[t] ? 1 : 0;
    ASSERT_EQ(total_length(union_of(clipped(a, lo, hi))), inside) << "trial " << trial;
  }
}

TEST(IntervalSet, TouchingSpansMergeAndEmptyOnesVanish) {
  EXPECT_EQ(union_of({{0, 10}, {10, 20}, {25, 25}, {30, 31}}), (std::vector<Span>{{0, 20}, {30, 31}}));
  EXPECT_EQ(union_of({{5, 6}, {0, 100}, {40, 50}}), (std::vector<Span>{{0, 100}}));  // nested
  EXPECT_TRUE(union_of({{3, 3}, {9, 2}}).empty());
  EXPECT_EQ(intersection_length({{0, 10}}, {{10, 20}}), 0);  // touching, not overlapping
}

}  // namespace
}  // namespace rb::bench
