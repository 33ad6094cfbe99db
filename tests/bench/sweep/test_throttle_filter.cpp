// Dropping throttled samples (NVBench's rule): a sample whose SM clock fell under the threshold is
// recorded but left out of the statistics, and more than half dropped fails the configuration.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "bench/measure/stats.hpp"
#include "bench/sweep/throttle_filter.hpp"

namespace rb::bench {
namespace {

TEST(ThrottleFilter, DropsSamplesUnderTheThresholdAndKeepsThemInTheRecord) {
  ThrottleFilter f({75, 50}, 1980.0, "test");
  ASSERT_TRUE(f.threshold_mhz());
  EXPECT_DOUBLE_EQ(*f.threshold_mhz(), 1485.0);
  // A cold GPU's first samples: idle clocks, then boost.
  const std::vector<double> ms{30.0, 14.0, 10.1, 10.0, 9.9, 10.2};
  const std::vector<std::optional<double>> mhz{345.0, 1400.0, 1980.0, 1485.0, 1965.0, std::nullopt};
  std::vector<double> kept;
  for (std::size_t i = 0; i < ms.size(); ++i)
    if (f.add(ms[i], mhz[i])) kept.push_back(ms[i]);
  // Exactly at the threshold counts; an unusable reading is not taken for a slow clock.
  EXPECT_EQ(kept, (std::vector<double>{10.1, 10.0, 9.9, 10.2}));
  EXPECT_EQ(f.dropped(), 2);
  EXPECT_EQ(f.taken(), 6);
  EXPECT_EQ(f.failure(), "");
  // The statistics see the steady GPU only: the cold samples would have tripled the spread.
  EXPECT_LT(summarize(kept).noise_pct, 1.5);
  EXPECT_GT(summarize(ms).noise_pct, 50.0);

  const auto j = f.to_json();
  EXPECT_EQ(j["samples_ms"], nlohmann::json(ms));
  EXPECT_EQ(j["dropped"], nlohmann::json({0, 1}));
  EXPECT_EQ(j["dropped_count"], 2);
  EXPECT_EQ(j["taken"], 6);
  EXPECT_DOUBLE_EQ(j["threshold_mhz"].get<double>(), 1485.0);
  EXPECT_DOUBLE_EQ(j["nominal_mhz"].get<double>(), 1980.0);
  EXPECT_EQ(j["recovery_ms"], 50.0);
  EXPECT_TRUE(j["samples_mhz"][5].is_null());
  EXPECT_EQ(j["samples_mhz"][0], 345.0);
}

TEST(ThrottleFilter, MoreThanHalfDroppedFailsTheConfiguration) {
  ThrottleFilter f({75, 0}, 1000.0, "test");
  f.add(1.0, 500.0);
  f.add(1.0, 1000.0);
  EXPECT_EQ(f.failure(), "") << "half is not more than half";
  f.add(1.0, 700.0);
  EXPECT_EQ(f.failure(), "throttled: 2 of 3 samples ran under 750 MHz, 75% of the nominal 1000 MHz");
}

TEST(ThrottleFilter, WithoutANominalClockOrThresholdNothingIsDropped) {
  ThrottleFilter cpu({75, 50}, std::nullopt, "none");
  EXPECT_FALSE(cpu.threshold_mhz());
  EXPECT_TRUE(cpu.add(5.0, 1.0));
  EXPECT_TRUE(cpu.to_json()["threshold_mhz"].is_null());
  ThrottleFilter off({0, 50}, 1980.0, "off");
  EXPECT_TRUE(off.add(5.0, 10.0));
  EXPECT_EQ(off.dropped(), 0);
  ThrottleFilter zero({75, 50}, 0.0, "a runtime that reports no clock");
  EXPECT_FALSE(zero.threshold_mhz());
  EXPECT_TRUE(zero.to_json()["nominal_mhz"].is_null());
}

}  // namespace
}  // namespace rb::bench
