// The CPU attention backward against textbook gradients: the textbook formulas are first held to
// finite differences of the loss Σ O∘dO, then the tiled twin to them on random segments (strided,
// odd lengths, several per side), GQA groups, causal and not, float64 and float32; and the twin's
// gradients of a step split in two key blocks add up to those of one call.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "common/error.hpp"
#include "kernels/attention_block_bwd_ref.hpp"
#include "naive_attention.hpp"

namespace rb::kernels::ref {
namespace backward_test {

std::vector<std::int64_t> positions(const SegmentList& segs) {
  std::vector<std::int64_t> p;
  for (const auto& s : segs)
    for (std::int64_t i = 0; i < s.count; ++i) p.push_back(s.pos(i));
  return p;
}

double loss(const std::vector<double>& q, const std::vector<std::int64_t>& qp, const std::vector<double>& k,
            const std::vector<double>& v, const std::vector<std::int64_t>& kp, const std::vector<double>& d_o, int hq,
            int hkv, int d, bool causal) {
  const auto o = test::naive_attention(q, qp, k, v, kp, hq, hkv, d, causal);
  double l = 0;
  for (std::size_t i = 0; i < o.size(); ++i) l += o[i] * d_o[i];
  return l;
}

TEST(AttentionBlockBwdRef, TextbookGradientsMatchFiniteDifferences) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  const int hq = 4, hkv = 2, d = 8;
  const std::vector<std::int64_t> qp{3, 4, 5, 9, 10}, kp{0, 2, 4, 6, 8, 10};
  std::vector<double> q(qp.size() * hq * d), k(kp.size() * hkv * d), v(k.size()), d_o(q.size());
  for (auto* x : {&q, &k, &v, &d_o})
    for (auto& e : *x) e = u(gen);
  for (bool causal : {true, false}) {
    std::vector<double> dq, dk, dv;
    test::naive_attention_backward(q, qp, k, v, kp, d_o, hq, hkv, d, causal, dq, dk, dv);
    const double h = 1e-6;
    auto check = [&](std::vector<double>& x, const std::vector<double>& grad, const char* name) {
      for (std::size_t i = 0; i < x.size(); i += 3) {
        const double keep = x[i];
        x[i] = keep + h;
        const double up = loss(q, qp, k, v, kp, d_o, hq, hkv, d, causal);
        x[i] = keep - h;
        const double down = loss(q, qp, k, v, kp, d_o, hq, hkv, d, causal);
        x[i] = keep;
        ASSERT_NEAR(grad[i], (up - down) / (2 * h), 1e-7) << name << " element " << i << " causal " << causal;
      }
    };
    check(q, dq, "dQ");
    check(k, dk, "dK");
    check(v, dv, "dV");
  }
}

struct Case {
  SegmentList qs, ks;
  int hq, hkv, d;
  bool causal;
};

std::vector<BlockPair> all_pairs(const SegmentList& qs, const SegmentList& ks, bool causal) {
  std::vector<BlockPair> pairs;
  const auto qo = row_offsets(qs), ko = row_offsets(ks);
  for (std::size_t a = 0; a < qs.size(); ++a)
    for (std::size_t b = 0; b < ks.size(); ++b)
      pairs.push_back({qs[a], qo[a], ks[b], ko[b], classify(qs[a], ks[b], causal)});
  return pairs;
}

template <typename T>
void check_case(const Case& c, std::mt19937_64& gen, double tol) {
  const auto qpos = positions(c.qs), kpos = positions(c.ks);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> q(qpos.size() * c.hq * c.d), k(kpos.size() * c.hkv * c.d), v(k.size()), d_o(q.size());
  for (auto* x : {&q, &k, &v, &d_o})
    for (auto& e : *x) e = static_cast<double>(static_cast<T>(u(gen)));  // exact in T
  std::vector<double> lse_ref, dq_ref, dk_ref, dv_ref;
  const auto o_ref = test::naive_attention(q, qpos, k, v, kpos, c.hq, c.hkv, c.d, c.causal, &lse_ref);
  test::naive_attention_backward(q, qpos, k, v, kpos, d_o, c.hq, c.hkv, c.d, c.causal, dq_ref, dk_ref, dv_ref);

  std::vector<T> qt(q.begin(), q.end()), kt(k.begin(), k.end()), vt(v.begin(), v.end()), gt(d_o.begin(), d_o.end());
  std::vector<T> ot(o_ref.begin(), o_ref.end()), lse(lse_ref.begin(), lse_ref.end()), delta(lse.size());
  attention_delta(ot.data(), gt.data(), delta.data(), static_cast<std::int64_t>(qpos.size()), c.hq, c.d);
  std::vector<T> dq(q.size(), T(0)), dk(k.size(), T(0)), dv(v.size(), T(0));
  const auto pairs = all_pairs(c.qs, c.ks, c.causal);
  AttentionBlockBwdParams<T> p;
  p.q = qt.data();
  p.k = kt.data();
  p.v = vt.data();
  p.d_o = gt.data();
  p.lse = lse.data();
  p.delta = delta.data();
  p.dq = dq.data();
  p.dk = dk.data();
  p.dv = dv.data();
  p.sq = static_cast<std::int64_t>(qpos.size());
  p.sk = static_cast<std::int64_t>(kpos.size());
  p.hq = c.hq;
  p.hkv = c.hkv;
  p.d = c.d;
  p.causal = c.causal;
  p.scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(c.d)));
  p.pairs = pairs;
  attention_block_backward(p);
  for (std::size_t i = 0; i < dq.size(); ++i) ASSERT_NEAR(dq[i], dq_ref[i], tol) << "dQ element " << i;
  for (std::size_t i = 0; i < dk.size(); ++i) ASSERT_NEAR(dk[i], dk_ref[i], tol) << "dK element " << i;
  for (std::size_t i = 0; i < dv.size(); ++i) ASSERT_NEAR(dv[i], dv_ref[i], tol) << "dV element " << i;
}

SegmentList random_segments(std::mt19937_64& gen, int max_segs) {
  std::uniform_int_distribution<std::int64_t> nseg(1, max_segs), start(0, 150), stride(1, 4), count(1, 90);
  SegmentList s(nseg(gen));
  for (auto& x : s) x = Segment{start(gen), stride(gen), count(gen)};
  return s;
}

TEST(AttentionBlockBwdRef, MatchesTextbookOnRandomSegments) {
  const auto seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 gen(seed);
  const int groups[][2] = {{1, 1}, {2, 1}, {4, 2}, {6, 3}};
  for (int trial = 0; trial < 16; ++trial) {
    const auto& g = groups[trial % 4];
    Case c{random_segments(gen, 3), random_segments(gen, 3), g[0], g[1], trial % 3 == 0 ? 16 : 8, trial % 2 == 0};
    check_case<double>(c, gen, 1e-12);
    check_case<float>(c, gen, 2e-4);
  }
}

// A row whose every key is masked has L = -inf and gets no gradient, and neither do its keys; a
// step's gradients computed as two calls over halves of the keys add up to one call's.
TEST(AttentionBlockBwdRef, MaskedRowsAddNothingAndKeyBlocksAdd) {
  const SegmentList qs{{0, 1, 40}}, ks{{20, 1, 70}};
  Case c{qs, ks, 2, 1, 8, true};
  std::mt19937_64 gen(3);
  check_case<double>(c, gen, 1e-12);  // rows 0..19 see nothing

  std::uniform_real_distribution<double> u(-1, 1);
  const auto qpos = positions(qs);
  const SegmentList k1{{0, 1, 50}}, k2{{50, 1, 50}}, kall{{0, 1, 100}};
  const auto kpos = positions(kall);
  std::vector<double> q(qpos.size() * 2 * 8), k(kpos.size() * 8), v(k.size()), d_o(q.size());
  for (auto* x : {&q, &k, &v, &d_o})
    for (auto& e : *x) e = u(gen);
  std::vector<double> lse;
  const auto o = test::naive_attention(q, qpos, k, v, kpos, 2, 1, 8, false, &lse);
  std::vector<double> delta(lse.size());
  attention_delta(o.data(), d_o.data(), delta.data(), static_cast<std::int64_t>(qpos.size()), 2, 8);
  auto run = [&](const std::vector<BlockPair>& pairs, std::vector<double>& dq, std::vector<double>& dk,
                 std::vector<double>& dv) {
    AttentionBlockBwdParams<double> p;
    p.q = q.data();
    p.k = k.data();
    p.v = v.data();
    p.d_o = d_o.data();
    p.lse = lse.data();
    p.delta = delta.data();
    p.dq = dq.data();
    p.dk = dk.data();
    p.dv = dv.data();
    p.sq = static_cast<std::int64_t>(qpos.size());
    p.sk = static_cast<std::int64_t>(kpos.size());
    p.hq = 2;
    p.hkv = 1;
    p.d = 8;
    p.causal = false;
    p.scale = 1.0 / std::sqrt(8.0);
    p.pairs = pairs;
    attention_block_backward(p);
  };
  std::vector<double> dq1(q.size(), 0), dk1(k.size(), 0), dv1(k.size(), 0);
  std::vector<double> dq2(q.size(), 0), dk2(k.size(), 0), dv2(k.size(), 0);
  run({BlockPair{qs[0], 0, kall[0], 0, MaskClass::full}}, dq1, dk1, dv1);
  run({BlockPair{qs[0], 0, k1[0], 0, MaskClass::full}}, dq2, dk2, dv2);
  run({BlockPair{qs[0], 0, k2[0], 50, MaskClass::full}}, dq2, dk2, dv2);
  for (std::size_t i = 0; i < dq1.size(); ++i) ASSERT_NEAR(dq1[i], dq2[i], 1e-12);
  for (std::size_t i = 0; i < dk1.size(); ++i) ASSERT_NEAR(dk1[i], dk2[i], 1e-12);
  for (std::size_t i = 0; i < dv1.size(); ++i) ASSERT_NEAR(dv1[i], dv2[i], 1e-12);
}

TEST(AttentionBlockBwdRef, RefusesPairsOutsideTheBuffers) {
  std::vector<double> buf(64, 0);
  const BlockPair pr{{0, 1, 4}, 0, {0, 1, 9}, 0, MaskClass::full};
  AttentionBlockBwdParams<double> p;
  p.q = p.k = p.v = p.d_o = p.lse = p.delta = buf.data();
  p.dq = p.dk = p.dv = buf.data();
  p.sq = 4;
  p.sk = 8;
  p.d = 1;
  p.pairs = std::span<const BlockPair>(&pr, 1);
  EXPECT_THROW(attention_block_backward(p), Error);
}

}  // namespace backward_test
}  // namespace rb::kernels::ref
