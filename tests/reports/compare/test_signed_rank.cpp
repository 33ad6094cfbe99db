// The A/B pair's test: Wilcoxon's signed-rank test over rounds, against brute force over every
// sign pattern (ties included), against its normal approximation, and its smallest p.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "reports/compare/signed_rank.hpp"

namespace rb::reports {
namespace {

// Every one of the 2^n sign patterns of |d| equally likely: the two-sided p of the observed W+.
double brute_force_p(const std::vector<double>& d) {
  std::vector<double> nz;
  for (double x : d)
    if (x != 0) nz.push_back(x);
  const int n = static_cast<int>(nz.size());
  if (n == 0) return 1.0;
  // Midranks of |d|.
  std::vector<double> mag(n), rank(n);
  for (int i = 0; i < n; ++i) mag[i] = std::fabs(nz[i]);
  for (int i = 0; i < n; ++i) {
    double below = 0, equal = 0;
    for (int j = 0; j < n; ++j) {
      below += mag[j] < mag[i];
      equal += mag[j] == mag[i];
    }
    rank[i] = below + (equal + 1) / 2;
  }
  double w = 0;
  for (int i = 0; i < n; ++i)
    if (nz[i] > 0) w += rank[i];
  double lower = 0, upper = 0;
  const double each = std::pow(0.5, n);
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    double s = 0;
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) s += rank[i];
    if (s <= w + 1e-9) lower += each;
    if (s >= w - 1e-9) upper += each;
  }
  return std::min(1.0, 2 * std::min(lower, upper));
}

TEST(SignedRank, ExactEqualsBruteForceWithAndWithoutTies) {
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> len(1, 12), level(-4, 4);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<double> d(len(gen));
    for (auto& x : d) x = level(gen) * 0.01;  // few levels: ties and zeros are common
    const UTestResult r = signed_rank_test(d);
    EXPECT_NEAR(r.p_value, brute_force_p(d), 1e-12) << "trial " << trial;
  }
}

TEST(SignedRank, EveryRoundOneWayReachesTheSmallestP) {
  for (int n = 1; n <= 16; ++n) {
    std::vector<double> up(n);
    for (int k = 0; k < n; ++k) up[k] = 0.1 + 0.01 * k;
    EXPECT_NEAR(signed_rank_test(up).p_value, signed_rank_min_p(n), 1e-15) << n;
    EXPECT_NEAR(signed_rank_min_p(n), std::min(1.0, 2.0 / std::pow(2.0, n)), 1e-15);
  }
  EXPECT_DOUBLE_EQ(signed_rank_min_p(0), 1.0);
  // Twelve rounds is the fewest that reaches half of 0.05/36, the smoke profile's first level.
  EXPECT_GT(signed_rank_min_p(11), 0.05 / 36 / 2);
  EXPECT_LE(signed_rank_min_p(12), 0.05 / 36 / 2);
}

TEST(SignedRank, ADirectionIsFoundAndBalanceIsNot) {
  // One slowed turn among twelve: a single large difference is one rank, not twelve samples.
  std::vector<double> aa{0.01, -0.02, 0.69, -0.01, 0.015, -0.03, 0.02, -0.005, 0.01, -0.02, 0.0, 0.005};
  EXPECT_GT(signed_rank_test(aa).p_value, 0.3);
  std::vector<double> slower(12, 0.14);
  slower[3] = -0.02;  // a burst made the base slower in one round
  const UTestResult r = signed_rank_test(slower);
  EXPECT_LT(r.p_value, 0.002);
  EXPECT_GT(r.u1, r.u2);
  EXPECT_EQ(signed_rank_test(std::vector<double>{0, 0, 0}).method, UTestMethod::none);
  EXPECT_DOUBLE_EQ(signed_rank_test(std::vector<double>{}).p_value, 1.0);
}

TEST(SignedRank, NormalApproximationIsCloseForManyRounds) {
  std::mt19937_64 gen(11);
  std::normal_distribution<double> noise(0.02, 0.05);
  std::vector<double> d(60);
  for (auto& x : d) x = noise(gen);
  const double exact = signed_rank_test(d).p_value, normal = signed_rank_test(d, false).p_value;
  EXPECT_EQ(signed_rank_test(d, false).method, UTestMethod::normal);
  EXPECT_NEAR(exact, normal, 0.01);
}

TEST(SignedRank, RoundDifferenceIsALogRatioOfPositiveTimes) {
  EXPECT_NEAR(round_difference(10, 20), std::log(2.0), 1e-15);
  EXPECT_NEAR(round_difference(20, 10), -std::log(2.0), 1e-15);
  EXPECT_DOUBLE_EQ(round_difference(0, 3), 3);  // no ratio from zero
  EXPECT_DOUBLE_EQ(round_difference(-1, 1), 2);
}

// The Hodges-Lehmann estimate against its definition, sorted out by hand: every Walsh average
// listed, its median taken.
TEST(SignedRank, HodgesLehmannIsTheMedianOfTheWalshAverages) {
  std::mt19937_64 gen(5);
  std::normal_distribution<double> noise(0.1, 0.3);
  for (int n = 1; n <= 9; ++n) {
    std::vector<double> d(static_cast<std::size_t>(n));
    for (auto& x : d) x = noise(gen);
    std::vector<double> walsh;
    for (int i = 0; i < n; ++i)
      for (int j = i; j < n; ++j) walsh.push_back((d[i] + d[j]) / 2);
    std::sort(walsh.begin(), walsh.end());
    const std::size_t m = walsh.size();
    const double want = m % 2 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2;
    EXPECT_DOUBLE_EQ(hodges_lehmann(d), want) << n;
  }
  EXPECT_DOUBLE_EQ(hodges_lehmann(std::vector<double>{0.3}), 0.3);
  EXPECT_TRUE(std::isnan(hodges_lehmann(std::vector<double>{})));
  EXPECT_DOUBLE_EQ(hodges_lehmann(std::vector<double>{0.1, std::nan(""), 0.1}), 0.1);
}

// The selection over the implicit Walsh averages (O(n) memory, where listing them took n(n+1)/2
// doubles: 2.3 GB at 24,000 rounds) gives exactly what listing them gives, at sizes where the
// selection runs (over 4096 averages, n >= 91), with ties and a spread of magnitudes, and for every
// rank, not only the median.
TEST(SignedRank, HodgesLehmannBySelectionEqualsTheListedMedian) {
  std::mt19937_64 gen(11);
  auto listed = [](const std::vector<double>& d) {
    std::vector<double> walsh;
    for (std::size_t i = 0; i < d.size(); ++i)
      for (std::size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
    std::sort(walsh.begin(), walsh.end());
    return walsh;
  };
  for (const int n : {2, 3, 10, 90, 91, 92, 150, 257, 600}) {
    for (const int kind : {0, 1, 2}) {
      std::vector<double> d(static_cast<std::size_t>(n));
      std::normal_distribution<double> noise(0.05, 0.2);
      std::uniform_int_distribution<int> few(-3, 3);
      for (auto& x : d)
        x = kind == 0 ? noise(gen) : kind == 1 ? 0.01 * few(gen) : std::ldexp(noise(gen), few(gen) * 40);
      const auto walsh = listed(d);
      const std::size_t m = walsh.size();
      const double want = m % 2 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2;
      EXPECT_EQ(hodges_lehmann(d), want) << n << " " << kind;
      std::vector<double> sorted = d;
      std::sort(sorted.begin(), sorted.end());
      for (const std::size_t k : {std::size_t{0}, m / 7, m / 3, m - 1})
        EXPECT_EQ(walsh_select(sorted, k), walsh[k]) << n << " " << kind << " rank " << k;
    }
  }
}

// What it is for: two rounds of twelve hit by a burst on one side move it by little, where the
// mean moves by a sixth of the burst.
TEST(SignedRank, HodgesLehmannHoldsAgainstRoundsABurstHit) {
  std::vector<double> d(12, 0.14);
  for (std::size_t k = 0; k < d.size(); ++k) d[k] += 0.002 * static_cast<double>(k % 3);
  d[2] = 0.9;
  d[7] = -0.5;
  EXPECT_NEAR(hodges_lehmann(d), 0.142, 0.003);
}

}  // namespace
}  // namespace rb::reports
