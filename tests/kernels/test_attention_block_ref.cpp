// The CPU attention kernel against textbook attention: random segments (strided, odd lengths,
// several per side), GQA groups, causal and not, float64 and float32.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "kernels/attention_block_ref.hpp"
#include "naive_attention.hpp"

namespace rb::kernels::ref {
namespace {

struct Case {
  SegmentList qs, ks;
  int hq, hkv, d;
  bool causal;
};

std::vector<std::int64_t> positions(const SegmentList& segs) {
  std::vector<std::int64_t> p;
  for (const auto& s : segs)
    for (std::int64_t i = 0; i < s.count; ++i) p.push_back(s.pos(i));
  return p;
}

template <typename T>
void check_case(const Case& c, std::mt19937_64& gen, double tol) {
  const auto qpos = positions(c.qs), kpos = positions(c.ks);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> q(qpos.size() * c.hq * c.d), k(kpos.size() * c.hkv * c.d), v(k.size());
  for (auto* x : {&q, &k, &v})
    for (auto& e : *x) e = static_cast<double>(static_cast<T>(u(gen)));  // exact in T
  std::vector<double> ref_lse;
  const auto ref = test::naive_attention(q, qpos, k, v, kpos, c.hq, c.hkv, c.d, c.causal, &ref_lse);

  std::vector<T> qt(q.begin(), q.end()), kt(k.begin(), k.end()), vt(v.begin(), v.end());
  std::vector<T> o(q.size(), T(7)), lse(qpos.size() * c.hq, T(7));  // garbage that must be overwritten
  std::vector<BlockPair> pairs;
  const auto qo = row_offsets(c.qs), ko = row_offsets(c.ks);
  for (std::size_t a = 0; a < c.qs.size(); ++a)
    for (std::size_t b = 0; b < c.ks.size(); ++b)
      pairs.push_back({c.qs[a], qo[a], c.ks[b], ko[b], classify(c.qs[a], c.ks[b], c.causal)});
  AttentionBlockParams<T> p;
  p.q = qt.data();
  p.k = kt.data();
  p.v = vt.data();
  p.o = o.data();
  p.lse = lse.data();
  p.sq = static_cast<std::int64_t>(qpos.size());
  p.sk = static_cast<std::int64_t>(kpos.size());
  p.hq = c.hq;
  p.hkv = c.hkv;
  p.d = c.d;
  p.causal = c.causal;
  p.scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(c.d)));
  p.pairs = pairs;
  attention_block(p);
  for (std::size_t i = 0; i < o.size(); ++i) ASSERT_NEAR(o[i], ref[i], tol) << "element " << i;
  for (std::size_t i = 0; i < lse.size(); ++i) {
    if (std::isinf(ref_lse[i])) {
      ASSERT_TRUE(std::isinf(lse[i]) && lse[i] < 0) << "row " << i << " saw no key but L = " << lse[i];
    } else {
      ASSERT_NEAR(lse[i], ref_lse[i], tol * 10) << "row " << i;
    }
  }
}

SegmentList random_segments(std::mt19937_64& gen, int max_segs) {
  std::uniform_int_distribution<std::int64_t> nseg(1, max_segs), start(0, 150), stride(1, 4), count(1, 90);
  SegmentList s(nseg(gen));
  for (auto& x : s) x = Segment{start(gen), stride(gen), count(gen)};
  return s;
}

TEST(AttentionBlockRef, MatchesNaiveOnRandomSegments) {
  const auto seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 gen(seed);
  const int groups[][2] = {{1, 1}, {2, 1}, {4, 2}, {8, 1}, {6, 3}};
  for (int t = 0; t < 40; ++t) {
    const auto& g = groups[t % 5];
    Case c{random_segments(gen, 3), random_segments(gen, 3), g[0], g[1], (t % 3 == 0) ? 16 : 8, t % 4 != 3};
    check_case<double>(c, gen, 1e-12);
    check_case<float>(c, gen, 2e-5);
  }
}

TEST(AttentionBlockRef, RowsWithoutKeysGiveZeroAndMinusInfinity) {
  // Queries at 0..9 against keys at 20..29: everything is masked.
  std::mt19937_64 gen(1);
  Case c{{Segment{0, 1, 10}}, {Segment{20, 1, 10}}, 2, 1, 4, true};
  check_case<double>(c, gen, 0);
}

TEST(AttentionBlockRef, TileBoundariesOfTheDiagonal) {
  // Lengths around the 16-row and 64-key tiles, on the diagonal block where masking is partial.
  std::mt19937_64 gen(2);
  for (std::int64_t n : {1, 15, 16, 17, 63, 64, 65, 129}) {
    Case c{{Segment{0, 1, n}}, {Segment{0, 1, n}}, 4, 2, 8, true};
    check_case<double>(c, gen, 1e-12);
  }
}

TEST(AttentionBlockRef, RejectsPairsOutsideTheBuffers) {
  std::vector<double> q(4), k(4), v(4), o(4), lse(4);
  BlockPair bad{Segment{0, 1, 5}, 0, Segment{0, 1, 4}, 0, MaskClass::partial};
  AttentionBlockParams<double> p;
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.o = o.data();
  p.lse = lse.data();
  p.sq = 4;
  p.sk = 4;
  p.pairs = std::span(&bad, 1);
  EXPECT_THROW(attention_block(p), std::exception);
}

}  // namespace
}  // namespace rb::kernels::ref
