// The noise-based stopping rule (NVBench's): not before --rounds rounds and --min-samples samples,
// then as soon as the relative standard deviation meets the target, else at --max-time, else at
// the round cap; the reason says which.
#include <gtest/gtest.h>

#include <vector>

#include "bench/sweep/stopping_rule.hpp"

namespace rb::bench {
namespace {

StoppingRule rule(double noise) {
  StoppingRule r;
  r.max_noise_pct = noise;
  r.min_samples = 5;
  r.min_rounds = 3;
  r.max_time_s = 10;
  return r;
}

TEST(StoppingRule, MeetsTheTargetOnlyWithEnoughSamplesAndRounds) {
  const std::vector<double> steady{10.0, 10.01, 9.99, 10.0, 10.02, 9.98};  // noise 0.14%
  EXPECT_TRUE(rule(1.0).adaptive());
  EXPECT_FALSE(rule(0.0).adaptive());
  EXPECT_EQ(stop_reason(rule(1.0), std::span(steady).first(4), 3, 0.1), "");  // 4 < min samples
  EXPECT_EQ(stop_reason(rule(1.0), steady, 2, 0.1), "");                      // 2 < min rounds
  EXPECT_EQ(stop_reason(rule(1.0), steady, 3, 0.1), "noise 0.14% <= 1.00%");
  EXPECT_EQ(stop_reason(rule(0.1), steady, 3, 0.1), "");  // 0.14% is above a 0.1% target
}

TEST(StoppingRule, TimeAndTheRoundCapEndANoisyConfiguration) {
  const std::vector<double> noisy{10.0, 14.0, 8.0, 12.0, 9.0, 15.0};
  EXPECT_EQ(stop_reason(rule(1.0), noisy, 3, 9.9), "");
  const std::string why = stop_reason(rule(1.0), noisy, 3, 10.0);
  EXPECT_EQ(why.rfind("max-time 10 s (noise ", 0), 0u) << why;
  StoppingRule no_limit = rule(1.0);
  no_limit.max_time_s = 0;  // no time limit: only the cap ends it
  EXPECT_EQ(stop_reason(no_limit, noisy, 999, 1e6), "");
  EXPECT_EQ(stop_reason(no_limit, noisy, StoppingRule::kMaxRounds, 1e6).rfind("max rounds 1000", 0), 0u);
}

}  // namespace
}  // namespace rb::bench
