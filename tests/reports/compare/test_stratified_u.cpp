// The stratified rank-sum test of an A/B pair against brute force over every arrangement within
// each round, against the plain U test for one round, and on the case it exists for: a burst that
// moved whole rounds of both builds.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "reports/compare/mann_whitney.hpp"
#include "reports/compare/stratified_u.hpp"

namespace rb::reports {
namespace {

std::vector<RoundBlock> blocks_of(const std::vector<std::pair<std::vector<double>, std::vector<double>>>& rounds) {
  std::vector<RoundBlock> b;
  for (const auto& [x, y] : rounds) b.push_back({x, y});
  return b;
}

TEST(StratifiedU, OneRoundIsThePlainUTest) {
  const std::vector<double> x{19, 22, 16, 29, 24}, y{20, 11, 17, 12};
  const std::vector<RoundBlock> one{{x, y}};
  const UTestResult s = stratified_u_test(one), u = mann_whitney_u(x, y);
  EXPECT_EQ(s.method, UTestMethod::exact);
  EXPECT_DOUBLE_EQ(s.u1, u.u1);
  EXPECT_NEAR(s.p_value, u.p_value, 1e-12);
  const std::vector<std::pair<int, int>> sizes{{5, 4}};
  EXPECT_NEAR(stratified_min_p(sizes), min_attainable_p(5, 4), 1e-15);
}

// Every way to split each round's pooled values between x and y, each equally likely and rounds
// independent: the exact null distribution of T, counted.
double brute_force_p(const std::vector<std::pair<std::vector<double>, std::vector<double>>>& rounds) {
  std::map<double, double> dist{{0.0, 1.0}};
  double t = 0;
  for (const auto& [x, y] : rounds) {
    for (double a : x)
      for (double b : y) t += a > b;
    std::vector<double> pool(x);
    pool.insert(pool.end(), y.begin(), y.end());
    std::vector<int> pick(pool.size(), 0);
    std::fill(pick.begin(), pick.begin() + static_cast<long>(x.size()), 1);
    std::sort(pick.begin(), pick.end());
    std::map<double, double> block;
    double ways = 0;
    do {
      double u = 0;
      for (std::size_t i = 0; i < pool.size(); ++i)
        for (std::size_t j = 0; j < pool.size(); ++j) u += pick[i] == 1 && pick[j] == 0 && pool[i] > pool[j];
      block[u] += 1;
      ++ways;
    } while (std::next_permutation(pick.begin(), pick.end()));
    std::map<double, double> next;
    for (const auto& [a, pa] : dist)
      for (const auto& [b, pb] : block) next[a + b] += pa * pb / ways;
    dist = next;
  }
  double le = 0, ge = 0;
  for (const auto& [v, p] : dist) {
    if (v <= t) le += p;
    if (v >= t) ge += p;
  }
  return std::min(1.0, 2 * std::min(le, ge));
}

TEST(StratifiedU, ExactDistributionMatchesBruteForce) {
  const std::vector<std::vector<std::pair<std::vector<double>, std::vector<double>>>> cases{
      {{{1, 4}, {2, 3}}, {{10, 12, 11}, {9, 13}}},
      {{{5, 6, 7}, {1, 2, 3}}, {{5, 6, 7}, {1, 2, 8}}, {{1}, {2}}},
      {{{3.5, 1.5}, {2.5, 0.5}}, {{8, 9}, {7, 10}}, {{20, 21}, {22, 23}}},
  };
  for (const auto& c : cases) {
    const auto b = blocks_of(c);
    const UTestResult r = stratified_u_test(b);
    EXPECT_EQ(r.method, UTestMethod::exact);
    EXPECT_NEAR(r.p_value, brute_force_p(c), 1e-12);
  }
}

// A burst slowed rounds 2 and 4 of both builds by half: the build under test is 5% slower in every
// round, always behind its partner within a round, yet the pooled samples interleave.
TEST(StratifiedU, ABurstThatMovedWholeRoundsDropsOut) {
  std::vector<std::pair<std::vector<double>, std::vector<double>>> rounds;
  std::vector<double> all_x, all_y;
  for (int r = 0; r < 4; ++r) {
    const double level = r % 2 ? 15.0 : 10.0;
    std::vector<double> x{level, level * 1.01}, y{level * 1.05, level * 1.06};
    all_x.insert(all_x.end(), x.begin(), x.end());
    all_y.insert(all_y.end(), y.begin(), y.end());
    rounds.emplace_back(x, y);
  }
  const auto b = blocks_of(rounds);
  const UTestResult paired = stratified_u_test(b);
  EXPECT_DOUBLE_EQ(paired.u1, 0.0);
  EXPECT_NEAR(paired.p_value, 2.0 / (6 * 6 * 6 * 6), 1e-12);  // the extreme in every round
  const std::vector<std::pair<int, int>> sizes{{2, 2}, {2, 2}, {2, 2}, {2, 2}};
  EXPECT_NEAR(stratified_min_p(sizes), paired.p_value, 1e-12);
  EXPECT_GT(mann_whitney_u(all_x, all_y).p_value, 0.05);  // pooled, the burst hides it (p = 0.10)
}

TEST(StratifiedU, TiesAndLargeBlocksUseTheNormalApproximation) {
  std::vector<std::pair<std::vector<double>, std::vector<double>>> rounds;
  for (int r = 0; r < 3; ++r) rounds.push_back({{1, 2, 2, 3, 4}, {2, 3, 4, 5, 5}});
  const UTestResult tied = stratified_u_test(blocks_of(rounds));
  EXPECT_TRUE(tied.ties);
  EXPECT_EQ(tied.method, UTestMethod::normal);
  EXPECT_GT(tied.p_value, 0.0);
  EXPECT_LT(tied.p_value, 0.1);
  // Without ties the approximation stays near the exact value.
  std::vector<std::pair<std::vector<double>, std::vector<double>>> distinct;
  for (int r = 0; r < 3; ++r) {
    const double o = r * 100.0;
    distinct.push_back({{o + 1, o + 3, o + 5, o + 7, o + 9}, {o + 4, o + 6, o + 8, o + 10, o + 12}});
  }
  const auto b = blocks_of(distinct);
  const double exact = stratified_u_test(b).p_value, normal = stratified_u_test(b, false).p_value;
  EXPECT_NEAR(normal / exact, 1.0, 0.15);
}

TEST(StratifiedU, EmptySidesCarryNothing) {
  const std::vector<double> x{1, 2}, none;
  const std::vector<RoundBlock> empty{{x, none}, {none, x}};
  EXPECT_EQ(stratified_u_test(empty).method, UTestMethod::none);
  EXPECT_DOUBLE_EQ(stratified_u_test(empty).p_value, 1.0);
  const std::vector<std::pair<int, int>> sizes{{2, 0}, {0, 3}};
  EXPECT_DOUBLE_EQ(stratified_min_p(sizes), 1.0);
}

}  // namespace
}  // namespace rb::reports
