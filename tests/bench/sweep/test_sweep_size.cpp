// The product of a sweep's axes, formed before any configuration is built: counted without
// wrapping, and refused above kMaxConfigurations naming the axes and the product.
#include <cstdint>
#include <numeric>
#include <string>

#include <gtest/gtest.h>

#include "bench/sweep/distributed.hpp"
#include "bench/sweep/sweep_configurations.hpp"

namespace rb::bench {
namespace {

std::vector<int> one_to(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 1);
  return v;
}

TEST(SweepSize, CountsTheProductOfTheAxes) {
  SweepSpec s;  // 1 seq x 3 cp x 3 splits
  EXPECT_EQ(configuration_count(s), 9u);
  s.heads = one_to(1000);
  s.cp = one_to(1000);
  s.seq.assign(1000, 4096);
  s.split = {Split::contiguous};
  EXPECT_EQ(configuration_count(s), 1'000'000'000u);
}

TEST(SweepSize, AProductPastTwoToThe64SaturatesInsteadOfWrapping) {
  SweepSpec s;
  // 2^11 values on six axes: 2^66, which wraps to 0 in 64 bits.
  s.seq.assign(2048, 4096);
  s.cp = one_to(2048);
  s.heads = one_to(2048);
  s.kv_heads = one_to(2048);
  s.head_dim = one_to(2048);
  s.dtype.assign(2048, DType::float32);
  s.split = {Split::contiguous};
  EXPECT_EQ(configuration_count(s), UINT64_MAX);
  try {
    (void)expand_configurations(s);
    FAIL() << "a product past 2^64 was expanded";
  } catch (const AgreedInputError& e) {
    EXPECT_EQ(e.where(), "sweep");
    EXPECT_EQ(e.value(), "more than 2^64 configurations");
  }
}

TEST(SweepSize, ABillionConfigurationsAreRefusedNamingTheAxes) {
  SweepSpec s;
  s.seq.assign(1000, 4096);
  s.cp = one_to(1000);
  s.heads = one_to(1000);
  s.split = {Split::contiguous};
  try {
    (void)expand_configurations(s);
    FAIL() << "1e9 configurations were expanded";
  } catch (const AgreedInputError& e) {
    EXPECT_EQ(e.where(), "sweep");
    EXPECT_EQ(e.value(), "1000000000 configurations");
    EXPECT_EQ(e.rule(),
              "the product of the axes (seq 1000 x cp 1000 x heads 1000) may be at most 100000 "
              "configurations");
  }
}

TEST(SweepSize, TheCapIsInclusive) {
  SweepSpec s;
  s.seq.assign(100, 4096);
  s.cp = one_to(1000);
  s.split = {Split::contiguous};
  EXPECT_EQ(configuration_count(s), kMaxConfigurations);
  s.cp = one_to(1001);
  EXPECT_THROW((void)expand_configurations(s), AgreedInputError);
  // A small sweep expands as before, repeated values merged.
  SweepSpec small;
  small.cp = {1, 2, 2};
  small.split = {Split::zigzag};
  EXPECT_EQ(expand_configurations(small).size(), 2u);
}

}  // namespace
}  // namespace rb::bench
