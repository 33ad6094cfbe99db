// Benjamini–Hochberg's level on hand-worked families, and its promise on an A/A night: with no
// change anywhere, any false verdict at all in at most alpha of the nights.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "reports/compare/error_rate.hpp"

namespace rb::reports {
namespace {

TEST(BenjaminiHochberg, EveryStepPasses) {
  const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
  const FamilyLevel f = benjamini_hochberg(p, 0.05);
  EXPECT_EQ(f.tests, 4);
  EXPECT_EQ(f.discoveries, 4);
  EXPECT_DOUBLE_EQ(f.level, 0.05);
  EXPECT_DOUBLE_EQ(f.first_level, 0.0125);
}

// Step-up: 0.03 misses its own step (0.025) but the larger 0.035 meets its (0.0375), so both count.
TEST(BenjaminiHochberg, StepsUpPastAMissedStep) {
  const std::vector<double> p{0.001, 0.2, 0.03, 0.035};
  const FamilyLevel f = benjamini_hochberg(p, 0.05);
  EXPECT_EQ(f.discoveries, 3);
  EXPECT_DOUBLE_EQ(f.level, 0.0375);
}

TEST(BenjaminiHochberg, NothingSignificantLeavesTheFirstLevel) {
  const std::vector<double> p{0.02, 0.5, 0.6};
  const FamilyLevel f = benjamini_hochberg(p, 0.05);
  EXPECT_EQ(f.discoveries, 0);
  EXPECT_DOUBLE_EQ(f.level, 0.05 / 3);
  EXPECT_LT(f.level, 0.02);  // the one that would pass at a plain 0.05 does not
  EXPECT_DOUBLE_EQ(benjamini_hochberg({}, 0.05).level, 0.05);
}

TEST(BenjaminiHochberg, AnANightFalselyAlarmsAtMostAlphaOfTheTime) {
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  int alarmed = 0, plain = 0;
  constexpr int kNights = 4000;
  for (int night = 0; night < kNights; ++night) {
    std::vector<double> p(36);
    for (double& x : p) x = uniform(rng);
    alarmed += benjamini_hochberg(p, 0.05).discoveries > 0;
    bool any = false;
    for (double x : p) any = any || x < 0.05;
    plain += any;
  }
  EXPECT_LE(alarmed, kNights * 0.06);  // about 5%
  EXPECT_GE(plain, kNights * 0.8);     // uncorrected: 1 - 0.95^36 = 84% of the nights
}

// The smoke profile's 36 configurations at alpha 0.05 decide below 0.00069. Measured apart, 9 samples
// a side reach 2/C(18,9) = 4.1e-5; an A/B pair is tested round by round, and 3 rounds can never go
// below 2/2^3 = 0.25, 11 below 0.00098: it takes 12 rounds (2/4096 = 0.00049).
TEST(PowerFloor, ThePairNeedsRoundsNotSamples) {
  const double level = decisive_level(0.05, 36);
  EXPECT_NEAR(level, 0.05 / 72, 1e-15);
  EXPECT_NEAR(power_floor(9, 3), 0.25, 1e-12);
  EXPECT_NEAR(power_floor(100, 11), 2.0 / 2048, 1e-12);
  EXPECT_GT(power_floor(100, 11), level);
  EXPECT_NEAR(power_floor(12, 12), 2.0 / 4096, 1e-12);
  EXPECT_LE(power_floor(12, 12), level);
  // Rounds beyond the repeats are rounds without a sample: they do not count.
  EXPECT_NEAR(power_floor(4, 12), 2.0 / 16, 1e-12);
  // Repeats still matter where the U test is the stricter: 3 samples a side over 3 rounds.
  EXPECT_NEAR(power_floor(3, 3), 0.25, 1e-12);
  EXPECT_NEAR(power_floor(2, 2), std::max(2.0 / 6, 0.5), 1e-12);
}

TEST(PowerFloor, TheAdviceGrowsWhatMustGrow) {
  const double level = decisive_level(0.05, 36);
  const Layout smoke = fewest_layout(level, 9, 3);
  EXPECT_EQ(smoke.rounds, 12);
  EXPECT_EQ(smoke.repeats, 12);
  EXPECT_EQ(layout_advice({9, 3}, smoke), "take at least 12 rounds and 12 repeats");
  const Layout enough = fewest_layout(level, 24, 12);
  EXPECT_EQ(enough.rounds, 12);
  EXPECT_EQ(enough.repeats, 24);
  EXPECT_LE(power_floor(enough.repeats, enough.rounds), level);
  // Eight configurations (the A/A test of CI): alpha/8/2 = 0.0031 takes 10 rounds.
  EXPECT_EQ(fewest_layout(decisive_level(0.05, 8), 1, 1).rounds, 10);
}

}  // namespace
}  // namespace rb::reports
