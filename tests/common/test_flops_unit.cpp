// The unit of a table's FLOP rates (common/flops_unit.hpp): chosen from the backend, once per table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/flops_unit.hpp"

namespace rb {
namespace {

TEST(FlopsUnit, TheCpuBackendReadsInGflopsEveryOtherInTflops) {
  EXPECT_EQ(flops_unit("cpu").name, "GFLOP/s");
  EXPECT_EQ(flops_unit("cuda").name, "TFLOP/s");
  EXPECT_EQ(flops_unit("").name, "TFLOP/s");  // a record without a backend keeps the old unit
  // The cpu backend's 0.004 TFLOP/s, which to three decimals reads 0.004, reads 4 GFLOP/s.
  EXPECT_DOUBLE_EQ(flops_unit("cpu").of_tflops(0.004), 4.0);
  EXPECT_DOUBLE_EQ(flops_unit("cuda").of_tflops(162.125), 162.125);
}

TEST(FlopsUnit, ATableKeepsOneUnitForAllItsRows) {
  const auto same = [](const std::string& b) { return b; };
  EXPECT_EQ(flops_unit_of(std::vector<std::string>{"cpu", "cpu"}, same).name, "GFLOP/s");
  EXPECT_EQ(flops_unit_of(std::vector<std::string>{"cpu", "cuda"}, same).name, "TFLOP/s");
  EXPECT_EQ(flops_unit_of(std::vector<std::string>{}, same).name, "TFLOP/s");
}

}  // namespace
}  // namespace rb
