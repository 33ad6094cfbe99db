// The cuDNN pieces' fold (kernels/fold_piece_ref.hpp): pieces of one step, each attention over part
// of the keys for part of the rows, folded into cleared accumulators give attention over all of
// them; a write takes the piece as it is; a fold touches only its rows; and merging agrees with the
// merge kernel's twin, whose arithmetic it shares.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "kernels/fold_piece_ref.hpp"
#include "kernels/merge_partials_ref.hpp"
#include "naive_attention.hpp"

namespace rb::kernels::ref {
namespace {

std::vector<float> to_float(const std::vector<double>& x) { return std::vector<float>(x.begin(), x.end()); }

TEST(FoldPieceRef, PiecesOverRowRangesFoldToAttentionOverAllKeys) {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  const int hq = 4, hkv = 2, d = 8;
  const std::vector<std::int64_t> qpos{10, 11, 12, 13, 14, 15};
  const std::vector<std::int64_t> ka{0, 1, 2, 3}, kb{10, 11, 12, 13, 14, 15};
  std::vector<double> q(qpos.size() * hq * d), k_a(ka.size() * hkv * d), v_a(k_a.size()), k_b(kb.size() * hkv * d),
      v_b(k_b.size());
  for (auto* x : {&q, &k_a, &v_a, &k_b, &v_b})
    for (auto& e : *x) e = u(gen);
  std::vector<std::int64_t> kall(ka);
  kall.insert(kall.end(), kb.begin(), kb.end());
  std::vector<double> k_all(k_a), v_all(v_a);
  k_all.insert(k_all.end(), k_b.begin(), k_b.end());
  v_all.insert(v_all.end(), v_b.begin(), v_b.end());
  std::vector<double> la, lb, lall;
  // Piece 1: every row against keys 0-3 (a rectangle); piece 2: the same rows against their own
  // positions, causal (the square). Their O and L are over each piece's keys only.
  const auto oa = to_float(test::naive_attention(q, qpos, k_a, v_a, ka, hq, hkv, d, true, &la));
  const auto ob = to_float(test::naive_attention(q, qpos, k_b, v_b, kb, hq, hkv, d, true, &lb));
  const auto want = test::naive_attention(q, qpos, k_all, v_all, kall, hq, hkv, d, true, &lall);
  const auto la_f = to_float(la), lb_f = to_float(lb);
  const auto rows = static_cast<std::int64_t>(qpos.size());
  std::vector<float> acc(oa.size(), 7.f), lacc(la.size(), 7.f);  // garbage: write and clear must not read it
  fold_piece({acc.data(), lacc.data(), oa.data(), la_f.data(), 0, rows, hq, d, FoldMode::write});
  for (std::size_t i = 0; i < acc.size(); ++i) ASSERT_EQ(acc[i], oa[i]);
  fold_piece({acc.data(), lacc.data(), ob.data(), lb_f.data(), 0, rows, hq, d, FoldMode::merge});
  for (std::size_t i = 0; i < acc.size(); ++i) ASSERT_NEAR(acc[i], want[i], 1e-5);
  for (std::size_t i = 0; i < lacc.size(); ++i) ASSERT_NEAR(lacc[i], lall[i], 1e-5);
  // Cleared first, then both merged, in either order: the same.
  std::vector<float> acc2(oa.size(), 7.f), lacc2(la.size(), 7.f);
  fold_piece({acc2.data(), lacc2.data(), nullptr, nullptr, 0, rows, hq, d, FoldMode::clear});
  for (float x : acc2) ASSERT_EQ(x, 0.f);
  for (float x : lacc2) ASSERT_TRUE(std::isinf(x) && x < 0);
  fold_piece({acc2.data(), lacc2.data(), ob.data(), lb_f.data(), 0, rows, hq, d, FoldMode::merge});
  fold_piece({acc2.data(), lacc2.data(), oa.data(), la_f.data(), 0, rows, hq, d, FoldMode::merge});
  for (std::size_t i = 0; i < acc2.size(); ++i) ASSERT_NEAR(acc2[i], want[i], 1e-5);
}

TEST(FoldPieceRef, AFoldTouchesOnlyItsRows) {
  const int hq = 2, d = 4;
  const std::int64_t sq = 5;
  std::vector<float> acc(sq * hq * d, 1.f), lacc(sq * hq, 0.5f), piece(sq * hq * d, 3.f), lpiece(sq * hq, 0.5f);
  fold_piece({acc.data(), lacc.data(), piece.data(), lpiece.data(), 2, 2, hq, d, FoldMode::merge});
  for (std::int64_t row = 0; row < sq; ++row)
    for (int x = 0; x < hq * d; ++x) {
      const float v = acc[static_cast<std::size_t>(row * hq * d + x)];
      if (row == 2 || row == 3)
        ASSERT_FLOAT_EQ(v, 2.f);  // equal weights: the mean of 1 and 3
      else
        ASSERT_EQ(v, 1.f) << "row " << row;
    }
  EXPECT_NEAR(lacc[2 * hq], 0.5f + std::log(2.f), 1e-6);
  EXPECT_EQ(lacc[0], 0.5f);
  EXPECT_THROW(fold_piece({acc.data(), lacc.data(), nullptr, nullptr, 0, 1, hq, d, FoldMode::merge}), Error);
  EXPECT_THROW(fold_piece({acc.data(), lacc.data(), piece.data(), lpiece.data(), -1, 1, hq, d}), Error);
}

TEST(FoldPieceRef, MergingIsTheMergeKernelsArithmetic) {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<float> u(-1, 1), l(-5, 30);
  const int hq = 3, d = 16;
  const std::int64_t rows = 40;
  const auto n = static_cast<std::size_t>(rows * hq);
  std::vector<float> oa(n * d), ob(n * d), la(n), lb(n);
  for (auto* x : {&oa, &ob})
    for (auto& e : *x) e = u(gen);
  for (std::size_t i = 0; i < n; ++i) {
    la[i] = i % 7 == 0 ? -std::numeric_limits<float>::infinity() : l(gen);
    lb[i] = i % 5 == 0 ? -std::numeric_limits<float>::infinity() : l(gen);
  }
  std::vector<float> fa(oa), fl(la);
  fold_piece({fa.data(), fl.data(), ob.data(), lb.data(), 0, rows, hq, d, FoldMode::merge});
  merge_partials<float>({oa.data(), la.data(), ob.data(), lb.data(), rows, hq, d});
  EXPECT_EQ(fa, oa);
  EXPECT_EQ(fl, la);
}

}  // namespace
}  // namespace rb::kernels::ref
