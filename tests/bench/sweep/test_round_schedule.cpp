// The schedule asks each configuration whether a round is due, and runs the rounds interleaved or
// back to back; a configuration that stops early, or never starts, simply stops being asked for.
#include <cstddef>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "bench/sweep/round_schedule.hpp"

namespace rb::bench {
namespace {

using Order = std::vector<std::pair<std::size_t, int>>;

// Configurations that take rounds[i] rounds each (0: skipped after being asked for round 0),
// running in the order the schedule gives; the schedule must only ever ask for the next round.
Order run(const std::vector<int>& rounds, bool interleave) {
  std::vector<int> done(rounds.size(), 0);
  std::vector<bool> closed(rounds.size(), false);
  RoundSchedule schedule(rounds.size(), interleave, [&](std::size_t i, int r) {
    return !closed[i] && r == done[i] && r < std::max(1, rounds[i]);
  });
  Order order;
  while (const auto at = schedule.next()) {
    EXPECT_EQ(at->round, done[at->config]) << "a round was scheduled out of turn";
    order.emplace_back(at->config, at->round);
    if (rounds[at->config] == 0)
      closed[at->config] = true;  // skipped at its plan stage
    else
      ++done[at->config];
  }
  return order;
}

TEST(RoundSchedule, InterleavedRunsRoundOneOfEveryConfigurationFirst) {
  EXPECT_EQ(run({3, 3}, true), (Order{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}}));
}

TEST(RoundSchedule, BackToBackRunsEachConfigurationsRoundsTogether) {
  EXPECT_EQ(run({3, 3}, false), (Order{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
}

// A configuration that stops early (--max-noise, or a failure) leaves the others' order as it was;
// a skipped one is asked for its first round and never again.
TEST(RoundSchedule, ConfigurationsThatStopEarlyDropOutOfLaterPasses) {
  EXPECT_EQ(run({1, 0, 3, 2}, true), (Order{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}}));
  EXPECT_EQ(run({1, 0, 3, 2}, false), (Order{{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {3, 0}, {3, 1}}));
}

// Adaptive sampling has no round count up front: a configuration stays due as long as it wants.
TEST(RoundSchedule, AConfigurationIsAskedAgainWhileItSamplesOn) {
  const Order order = run({1, 7}, true);
  ASSERT_EQ(order.size(), 8U);
  for (std::size_t k = 2; k < order.size(); ++k) EXPECT_EQ(order[k], (std::pair<std::size_t, int>{1, int(k) - 1}));
}

TEST(RoundSchedule, AnEmptySweepHasNoRounds) {
  EXPECT_TRUE(run({}, true).empty());
  EXPECT_TRUE(run({}, false).empty());
}

}  // namespace
}  // namespace rb::bench
