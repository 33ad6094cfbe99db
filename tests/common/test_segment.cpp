// Segment arithmetic against brute force: mask classes and the closed-form unmasked pair count.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/segment.hpp"

namespace rb {
namespace {

std::int64_t brute_pairs(const Segment& q, const Segment& k, bool causal) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < q.count; ++i)
    for (std::int64_t j = 0; j < k.count; ++j) n += (!causal || k.pos(j) <= q.pos(i)) ? 1 : 0;
  return n;
}

MaskClass brute_class(const Segment& q, const Segment& k) {
  const std::int64_t pairs = brute_pairs(q, k, true);
  if (pairs == q.count * k.count) return MaskClass::full;
  if (pairs == 0) return MaskClass::skip;
  return MaskClass::partial;
}

TEST(Segment, PositionsAndOffsets) {
  const Segment s{5, 3, 4};
  EXPECT_EQ(s.pos(0), 5);
  EXPECT_EQ(s.last(), 14);
  const SegmentList l{{0, 1, 4}, {10, 2, 3}, {1, 1, 5}};
  EXPECT_EQ(total_count(l), 12);
  EXPECT_EQ(row_offsets(l), (std::vector<std::int64_t>{0, 4, 7}));
}

TEST(Segment, UnmaskedPairsMatchBruteForceOnRandomSegments) {
  std::mt19937_64 gen(std::random_device{}());
  const auto seed = gen();
  gen.seed(seed);
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::uniform_int_distribution<std::int64_t> start(0, 200), stride(1, 9), count(1, 60);
  for (int t = 0; t < 5000; ++t) {
    const Segment q{start(gen), stride(gen), count(gen)};
    const Segment k{start(gen), stride(gen), count(gen)};
    ASSERT_EQ(unmasked_pairs(q, k, true), brute_pairs(q, k, true))
        << q.start << "," << q.stride << "," << q.count << " vs " << k.start << "," << k.stride << "," << k.count;
    ASSERT_EQ(unmasked_pairs(q, k, false), q.count * k.count);
    ASSERT_EQ(classify(q, k, true), brute_class(q, k));
    ASSERT_EQ(classify(q, k, false), MaskClass::full);
  }
}

TEST(Segment, UnmaskedPairsOfAWholeCausalSequence) {
  // The usual S(S+1)/2, at a size where only the closed form is affordable.
  const std::int64_t S = 10'000'000;
  EXPECT_EQ(unmasked_pairs(Segment{0, 1, S}, Segment{0, 1, S}, true), S * (S + 1) / 2);
  // A strided segment against itself: query i sees keys 0..i.
  EXPECT_EQ(unmasked_pairs(Segment{7, 1024, 9766}, Segment{7, 1024, 9766}, true), 9766LL * 9767 / 2);
}

TEST(Segment, MaskClassesOfAdjacentBlocks) {
  const Segment a{0, 1, 8}, b{8, 1, 8};
  EXPECT_EQ(classify(b, a, true), MaskClass::full);     // keys all before the queries
  EXPECT_EQ(classify(a, b, true), MaskClass::skip);     // keys all after
  EXPECT_EQ(classify(a, a, true), MaskClass::partial);  // the diagonal block
}

// A lane's piece of a block: local rows [begin, end) as segments, cutting a segment the range
// crosses, against the positions listed one by one.
TEST(Segment, SliceRowsKeepsExactlyTheRowsInRange) {
  const SegmentList segs{{0, 1, 5}, {20, 3, 4}, {100, 1, 3}};  // rows 0-4, 5-8, 9-11
  std::vector<std::int64_t> all;
  for (const auto& s : segs)
    for (std::int64_t i = 0; i < s.count; ++i) all.push_back(s.pos(i));
  for (std::int64_t b = 0; b <= 12; ++b)
    for (std::int64_t e = b; e <= 12; ++e) {
      std::vector<std::int64_t> got;
      for (const auto& s : slice_rows(segs, b, e)) {
        EXPECT_GT(s.count, 0);
        for (std::int64_t i = 0; i < s.count; ++i) got.push_back(s.pos(i));
      }
      EXPECT_EQ(got, std::vector<std::int64_t>(all.begin() + b, all.begin() + e)) << b << ".." << e;
    }
  EXPECT_EQ(slice_rows(segs, 6, 8), (SegmentList{{23, 3, 2}}));
  EXPECT_EQ(slice_rows(segs, 0, 12), segs);
}

}  // namespace
}  // namespace rb
