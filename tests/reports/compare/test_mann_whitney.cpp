// The Mann–Whitney U test against published and hand-worked values, and its exact distribution
// against brute-force enumeration of every arrangement.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "reports/compare/mann_whitney.hpp"

namespace rb::reports {
namespace {

// scipy.stats.mannwhitneyu's documentation example (Conover, "Practical Nonparametric Statistics"):
// ages of male and female workers. Published: U = 17, exact p = 0.1111111111111111, asymptotic
// (continuity-corrected) p = 0.11134688653314041. By hand: C(9,4) = 126 arrangements, 7 of them
// with U <= 3 (U = 0: 1, 1: 1, 2: 2, 3: 3), so p = 2·7/126 = 1/9.
TEST(MannWhitney, ScipyDocumentationExampleExact) {
  const std::vector<double> males{19, 22, 16, 29, 24}, females{20, 11, 17, 12};
  const auto r = mann_whitney_u(males, females);
  EXPECT_EQ(r.method, UTestMethod::exact);
  EXPECT_FALSE(r.ties);
  EXPECT_DOUBLE_EQ(r.u1, 17.0);
  EXPECT_DOUBLE_EQ(r.u2, 3.0);
  EXPECT_NEAR(r.p_value, 1.0 / 9.0, 1e-15);
  // Swapping the samples swaps U1 and U2 and leaves the two-sided p alone.
  const auto s = mann_whitney_u(females, males);
  EXPECT_DOUBLE_EQ(s.u1, 3.0);
  EXPECT_NEAR(s.p_value, r.p_value, 1e-15);
}

TEST(MannWhitney, ScipyDocumentationExampleNormal) {
  const std::vector<double> males{19, 22, 16, 29, 24}, females{20, 11, 17, 12};
  const auto r = mann_whitney_u(males, females, /*allow_exact=*/false);
  EXPECT_EQ(r.method, UTestMethod::normal);
  // mu = 10, sigma^2 = 5·4·10/12, z = (17 − 10 − 0.5)/sigma.
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);
}

// Hand-worked with ties: x = {1, 2, 2, 3}, y = {2, 3, 4, 5}. Ranks: 1→1, the three 2s → 3, the two
// 3s → 5.5, 4→7, 5→8; R_x = 12.5, U_x = 12.5 − 10 = 2.5. Tie term Σ(t³−t) = 24 + 6 = 30, so
// sigma² = 16/12 · (9 − 30/56) = 11.2857…; z = (13.5 − 8 − 0.5)/sigma = 1.48835…, p = 0.136658…
TEST(MannWhitney, TiesUseAverageRanksAndCorrectedVariance) {
  const std::vector<double> x{1, 2, 2, 3}, y{2, 3, 4, 5};
  const auto r = mann_whitney_u(x, y);
  EXPECT_TRUE(r.ties);
  EXPECT_EQ(r.method, UTestMethod::normal);  // the exact table assumes no ties
  EXPECT_DOUBLE_EQ(r.u1, 2.5);
  EXPECT_NEAR(r.p_value, 0.13665824773814753, 1e-12);
}

TEST(MannWhitney, CompletelySeparatedSmallSamples) {
  const std::vector<double> a{1, 2, 3, 4}, b{5, 6, 7, 8};
  const auto r = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(r.u1, 0.0);
  EXPECT_NEAR(r.p_value, 2.0 / 70.0, 1e-15);  // one arrangement of C(8,4) = 70 at each extreme
  EXPECT_NEAR(min_attainable_p(4, 4), 2.0 / 70.0, 1e-15);
  EXPECT_NEAR(min_attainable_p(3, 3), 0.1, 1e-15);
  EXPECT_EQ(min_attainable_p(0, 5), 1.0);
}

TEST(MannWhitney, DegenerateInputs) {
  const std::vector<double> empty, one{1.0}, same{2, 2, 2};
  EXPECT_EQ(mann_whitney_u(empty, one).method, UTestMethod::none);
  EXPECT_EQ(mann_whitney_u(empty, one).p_value, 1.0);
  EXPECT_EQ(mann_whitney_u(one, one).p_value, 1.0);  // one tie: every value tied
  EXPECT_EQ(mann_whitney_u(same, same).p_value, 1.0);
  const std::vector<double> a{1.0}, b{2.0};
  EXPECT_EQ(mann_whitney_u(a, b).p_value, 1.0);  // 1 vs 1: both arrangements equally extreme
}

// Brute force: every way to choose which of the n pooled ranks belong to x.
double brute_force_p(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> all(x);
  all.insert(all.end(), y.begin(), y.end());
  const std::size_t n = all.size(), n1 = x.size();
  auto u_of = [&](const std::vector<bool>& in_x) {
    double u = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (in_x[i] && !in_x[j]) u += all[i] > all[j] ? 1.0 : all[i] == all[j] ? 0.5 : 0.0;
    return u;
  };
  std::vector<bool> observed(n, false);
  std::fill(observed.begin(), observed.begin() + static_cast<long>(n1), true);
  const double u_obs = u_of(observed);
  std::vector<bool> sel(n, false);
  std::fill(sel.end() - static_cast<long>(n1), sel.end(), true);
  double le = 0, ge = 0, total = 0;
  do {
    const double u = u_of(sel);
    le += u <= u_obs;
    ge += u >= u_obs;
    total += 1;
  } while (std::next_permutation(sel.begin(), sel.end()));
  return std::min(1.0, 2.0 * std::min(le, ge) / total);
}

TEST(MannWhitney, ExactMatchesBruteForceEnumeration) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  for (int trial = 0; trial < 40; ++trial) {
    const int n1 = 1 + static_cast<int>(rng() % 6), n2 = 1 + static_cast<int>(rng() % 6);
    const double shift = (trial % 4) * 0.3;
    std::vector<double> x(n1), y(n2);
    for (auto& v : x) v = unif(rng);
    for (auto& v : y) v = unif(rng) + shift;
    const auto r = mann_whitney_u(x, y);
    ASSERT_EQ(r.method, UTestMethod::exact);
    EXPECT_NEAR(r.p_value, brute_force_p(x, y), 1e-12) << "n1=" << n1 << " n2=" << n2 << " trial " << trial;
  }
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  // 30 vs 30 interleaved: x = 0, 2, 4, …, y = 1, 3, 5, …  Then U_x = Σ_i i = 435 (x_i beats the i
  // y's below it), mu = 450, sigma² = 900·61/12 = 4575, z = (465 − 450 − 0.5)/sqrt(4575).
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) {
    x.push_back(2.0 * i);
    y.push_back(2.0 * i + 1);
  }
  const auto r = mann_whitney_u(x, y);
  EXPECT_EQ(r.method, UTestMethod::normal);
  EXPECT_DOUBLE_EQ(r.u1, 435.0);
  const double z = 14.5 / std::sqrt(4575.0);
  EXPECT_NEAR(r.p_value, std::erfc(z / std::sqrt(2.0)), 1e-12);
  EXPECT_GT(r.p_value, 0.8);
  // Shift y far above x: a tiny p.
  for (auto& v : y) v += 1000;
  EXPECT_LT(mann_whitney_u(x, y).p_value, 1e-9);
}

}  // namespace
}  // namespace rb::reports
