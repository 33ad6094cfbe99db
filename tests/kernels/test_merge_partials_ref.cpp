// Merging partials is exact: attention over keys A then merged with keys B equals attention over
// A and B; rows that have seen no key merge without NaN.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "kernels/merge_partials_ref.hpp"
#include "naive_attention.hpp"

namespace rb::kernels::ref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(MergePartialsRef, TwoKeySetsMergeToTheWhole) {
  std::mt19937_64 gen(std::random_device{}());
  std::uniform_real_distribution<double> u(-1, 1);
  const int hq = 4, hkv = 2, d = 8;
  std::vector<std::int64_t> qpos{0, 5, 9, 30, 31}, ka{0, 1, 2, 3, 4, 5, 6}, kb{7, 8, 9, 10, 30, 31, 40};
  std::vector<std::int64_t> kall(ka);
  kall.insert(kall.end(), kb.begin(), kb.end());
  std::vector<double> q(qpos.size() * hq * d), k(kall.size() * hkv * d), v(k.size());
  for (auto* x : {&q, &k, &v})
    for (auto& e : *x) e = u(gen);
  const std::size_t half = ka.size() * hkv * d;
  std::vector<double> k_a(k.begin(), k.begin() + half), k_b(k.begin() + half, k.end());
  std::vector<double> v_a(v.begin(), v.begin() + half), v_b(v.begin() + half, v.end());
  std::vector<double> la, lb, lall;
  auto oa = test::naive_attention(q, qpos, k_a, v_a, ka, hq, hkv, d, true, &la);
  auto ob = test::naive_attention(q, qpos, k_b, v_b, kb, hq, hkv, d, true, &lb);
  auto oall = test::naive_attention(q, qpos, k, v, kall, hq, hkv, d, true, &lall);
  // Query 0 sees nothing in B (L_b = -inf); no query is empty in A. Start from an empty accumulator.
  std::vector<double> acc(oa.size(), 0.0), lacc(la.size(), -kInf);
  const auto rows = static_cast<std::int64_t>(qpos.size());
  merge_partials<double>({acc.data(), lacc.data(), oa.data(), la.data(), rows, hq, d});
  merge_partials<double>({acc.data(), lacc.data(), ob.data(), lb.data(), rows, hq, d});
  for (std::size_t i = 0; i < acc.size(); ++i) ASSERT_NEAR(acc[i], oall[i], 1e-13);
  for (std::size_t i = 0; i < lacc.size(); ++i) ASSERT_NEAR(lacc[i], lall[i], 1e-13);
}

TEST(MergePartialsRef, EmptyRowsStayEmptyWithoutNaN) {
  std::vector<double> acc{0, 0}, lacc{-kInf}, part{0, 0}, lpart{-kInf};
  merge_partials<double>({acc.data(), lacc.data(), part.data(), lpart.data(), 1, 1, 2});
  EXPECT_EQ(acc[0], 0.0);
  EXPECT_EQ(acc[1], 0.0);
  EXPECT_TRUE(std::isinf(lacc[0]) && lacc[0] < 0);
}

TEST(MergePartialsRef, StableForLargeLogSumExps) {
  // exp(800) overflows a double; the stable form does not.
  std::vector<float> acc{1.0f}, lacc{800.0f}, part{3.0f}, lpart{800.0f};
  merge_partials<float>({acc.data(), lacc.data(), part.data(), lpart.data(), 1, 1, 1});
  // The weights exp(L_a - L) carry L's absolute float error, ulp(800) = 6.1e-5, so 2.0 to ~1e-4.
  EXPECT_NEAR(acc[0], 2.0f, 2.5e-4);
  EXPECT_NEAR(lacc[0], 800.0f + std::log(2.0f), 1e-4);
}

}  // namespace
}  // namespace rb::kernels::ref
