// The clock probe's twin and the arithmetic that turns a pass's clock stamps into the SM clock of
// the sample (the per-sample clock of docs/metrics.md, Throttling).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "kernels/clock_probe_ref.hpp"
#include "kernels/clock_stamp.hpp"

namespace rb::kernels {
namespace {

// A stamp as a probe block on the probe SM leaves it.
ClockStamp at(std::uint64_t cycles, std::uint64_t ns) { return {cycles, ns, kClockProbeSm}; }

TEST(ClockStamp, CyclesOverNanosecondsIsMegahertz) {
  const std::vector<ClockSpan> one{{at(1000, 10), at(1000 + 1'980'000, 10 + 1'000'000)}};  // 1.98 M cycles in 1 ms
  ASSERT_TRUE(clock_mhz(one));
  EXPECT_DOUBLE_EQ(*clock_mhz(one), 1980.0);
}

TEST(ClockStamp, SpansOfOneDeviceWeighByLength) {
  // 1 ms at 2000 MHz and 3 ms at 1000 MHz: 5 M cycles in 4 ms is 1250 MHz, not the plain mean 1500.
  const std::vector<ClockSpan> spans{{at(0, 100), at(2'000'000, 1'000'100)},
                                     {at(5, 2'000'000), at(3'000'005, 5'000'000)}};
  EXPECT_DOUBLE_EQ(*clock_mhz(spans), 1250.0);
}

TEST(ClockStamp, ABadReadingIsNoReadingNotASlowClock) {
  EXPECT_FALSE(clock_mhz({}));
  const ClockSpan never{{}, {}};  // a probe that did not run leaves its stamp unclaimed
  EXPECT_FALSE(clock_mhz(std::vector<ClockSpan>{never}));
  const ClockSpan no_time{at(100, 50), at(200, 50)};
  EXPECT_FALSE(clock_mhz(std::vector<ClockSpan>{no_time}));
  const ClockSpan cycles_back{at(500, 50), at(400, 80)};
  EXPECT_FALSE(clock_mhz(std::vector<ClockSpan>{cycles_back}));
  const ClockSpan time_back{at(100, 80), at(400, 50)};
  EXPECT_FALSE(clock_mhz(std::vector<ClockSpan>{time_back}));
  // One bad span spoils the device's reading rather than being averaged away.
  const ClockSpan good{at(0, 1), at(1'000'000, 1'000'001)};
  EXPECT_FALSE(clock_mhz(std::vector<ClockSpan>{good, cycles_back}));
}

// clock64 is per SM: two probes on different SMs read two counters, and their difference is no
// clock even when it looks like one (here a plausible 1500 MHz).
TEST(ClockStamp, ProbesOnTwoSmsAreNoReading) {
  ClockSpan two_sms{at(1000, 10), at(1000 + 1'500'000, 10 + 1'000'000)};
  ASSERT_DOUBLE_EQ(*clock_mhz(std::vector<ClockSpan>{two_sms}), 1500.0);
  two_sms.end.sm = kClockProbeSm + 7;
  EXPECT_FALSE(clock_mhz(std::vector<ClockSpan>{two_sms}));
  two_sms.end.sm = kClockProbeSm;
  two_sms.begin.sm = kNoSm;  // the first probe's blocks all missed the probe SM
  EXPECT_FALSE(clock_mhz(std::vector<ClockSpan>{two_sms}));
  // ... and a device whose only span is such a pair is left out of the slowest device's clock.
  const ClockSpan fine{at(0, 1), at(2'000'000, 1'000'001)};
  EXPECT_DOUBLE_EQ(*slowest_clock_mhz({fine, two_sms}, {0, 1}), 2000.0);
}

TEST(ClockStamp, ASampleOnSeveralDevicesRunsAtItsSlowestDevicesClock) {
  const ClockSpan fast{at(0, 1), at(2'000'000, 1'000'001)};  // 2000 MHz
  const ClockSpan slow{at(0, 1), at(1'000'000, 1'000'001)};  // 1000 MHz
  const ClockSpan bad{at(9, 1), at(3, 1'000'001)};
  // Device 0 holds two ranks (1500 MHz over both spans), device 1 one (1000): the sample reads 1000.
  EXPECT_DOUBLE_EQ(*slowest_clock_mhz({fast, slow, slow}, {0, 0, 1}), 1000.0);
  EXPECT_DOUBLE_EQ(*slowest_clock_mhz({fast, slow, fast}, {0, 0, 1}), 1500.0);
  // A device with an unusable reading is left out, not read as 0 MHz.
  EXPECT_DOUBLE_EQ(*slowest_clock_mhz({fast, bad}, {0, 1}), 2000.0);
  EXPECT_FALSE(slowest_clock_mhz({bad}, {3}));
  EXPECT_THROW(slowest_clock_mhz({fast}, {0, 1}), Error);
}

TEST(ClockProbeRef, StampsMoveForwardAtASteadyRate) {
  ClockSpan a, b;
  ref::clock_probe({&a.begin});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ref::clock_probe({&a.end});
  ref::clock_probe({&b.begin});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ref::clock_probe({&b.end});
  EXPECT_GE(a.end.ns - a.begin.ns, 50'000'000u);
  const auto fa = clock_mhz(std::vector<ClockSpan>{a}), fb = clock_mhz(std::vector<ClockSpan>{b});
  ASSERT_TRUE(fa && fb);
  // The time-stamp counter of any x86 made this century ticks between 100 MHz and 10 GHz, and at
  // one rate: two spans of different lengths read the same within a few percent.
  EXPECT_GT(*fa, 100.0);
  EXPECT_LT(*fa, 10000.0);
  EXPECT_NEAR(*fa / *fb, 1.0, 0.05);
}

// The rule the kernel follows, with the SMs its blocks land on chosen by the test: only a block on
// the probe SM writes, the first such block claims the stamp, and a probe none of whose blocks
// reached the probe SM leaves the stamp unwritten, which clock_mhz refuses.
TEST(ClockProbeRef, OnlyTheFirstBlockOnTheProbeSmWrites) {
  EXPECT_TRUE(clock_probe_writes(kClockProbeSm));
  EXPECT_FALSE(clock_probe_writes(kClockProbeSm + 1));
  ClockStamp s;
  ref::clock_probe({&s, {5, 3}});
  EXPECT_EQ(s.sm, kNoSm);
  EXPECT_EQ(s.ns, 0u);
  ref::clock_probe({&s, {4, kClockProbeSm, 9, kClockProbeSm}});
  EXPECT_EQ(s.sm, kClockProbeSm);
  const ClockStamp first = s;
  ref::clock_probe({&s, {kClockProbeSm}});  // a stamp already claimed is not overwritten
  EXPECT_EQ(s.ns, first.ns);
  EXPECT_EQ(s.cycles, first.cycles);
  ClockSpan missed{first, {}};
  ref::clock_probe({&missed.end, {1, 2, 3}});
  EXPECT_FALSE(clock_mhz(std::vector<ClockSpan>{missed}));
}

TEST(ClockProbeRef, RefusesANullStamp) { EXPECT_THROW(ref::clock_probe({nullptr}), Error); }

}  // namespace
}  // namespace rb::kernels
