// The NVML loader against a stand-in library (fake_nvml.c): values and units arrive as NVML gives
// them (milliwatts become watts), the clock-event bits decode by name, thermal and power reasons are
// told from idle; a library that is not there, or a device NVML does not know, gives the reason.
#include <gtest/gtest.h>

#include <cstdlib>

#include "bench/sweep/gpu_state.hpp"

namespace rb::bench {
namespace {

TEST(GpuState, ClockEventReasonsDecodeByName) {
  EXPECT_EQ(clock_event_reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(clock_event_reason_names(0x1 | 0x40), (std::vector<std::string>{"gpu_idle", "hw_thermal_slowdown"}));
  EXPECT_EQ(clock_event_reason_names(0x1000).back(), "other (0x1000)");
  EXPECT_FALSE(thermal_or_power_limited(0x1 | 0x2 | 0x10));  // idle, app clocks, sync boost
  for (unsigned long long bit : {0x4ull, 0x8ull, 0x20ull, 0x40ull, 0x80ull}) EXPECT_TRUE(thermal_or_power_limited(bit));
}

TEST(GpuState, ReadsNvmlThroughTheLoader) {
  ::setenv("RINGBENCH_NVML_LIBRARY", RINGBENCH_FAKE_NVML, 1);
  const auto s = nvml_device_state("0000:19:00.0");
  ASSERT_FALSE(s.contains("unavailable")) << s.dump();
  EXPECT_EQ(s["temperature_c"], 41);
  EXPECT_DOUBLE_EQ(s["power_w"].get<double>(), 123.456);
  EXPECT_DOUBLE_EQ(s["power_limit_w"].get<double>(), 700.0);
  EXPECT_EQ(s["sm_clock_mhz"], 1980);
  EXPECT_EQ(s["clock_event_reasons"], (nlohmann::json{"gpu_idle", "sw_power_cap"}));
  EXPECT_TRUE(s["thermal_or_power_limited"].get<bool>());
  EXPECT_EQ(s["mig_mode"], "disabled");
  const auto missing = nvml_device_state("ffff:00:00.0");
  EXPECT_NE(missing.value("unavailable", "").find("Not Found"), std::string::npos) << missing.dump();
}

TEST(GpuState, AnAbsentLibrarySaysSo) {
  ::setenv("RINGBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const auto s = nvml_device_state("0000:19:00.0");
  EXPECT_NE(s.value("unavailable", "").find("NVML not loaded"), std::string::npos) << s.dump();
  ::unsetenv("RINGBENCH_NVML_LIBRARY");
}

}  // namespace
}  // namespace rb::bench
