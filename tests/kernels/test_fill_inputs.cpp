// The input generator follows docs/design.md §3 to the bit, and rounding matches IEEE round-to-nearest-even.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/fill_inputs_ref.hpp"

namespace rb::kernels::ref {
namespace {

TEST(FillInputs, SplitMix64KnownValues) {
  // The first outputs of the reference SplitMix64 generator seeded with 0 (state advanced by the
  // golden gamma before each output): state = k*gamma, output = mix(state).
  EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64(0x9E3779B97F4A7C15ull), 0x6E789E6AA1B965F4ull);
}

TEST(FillInputs, ValueFormulaAndRange) {
  // Element (p=3, h=1, d=2) of K with H=2, D=4: i = (3*2+1)*4+2 = 30.
  const std::uint64_t seed = 7;
  const std::uint64_t u = splitmix64(seed ^ (1ull << 60) ^ 30ull);
  EXPECT_EQ(input_value(seed, Tensor::k, 2, 4, 3, 1, 2), static_cast<double>(u >> 11) * std::ldexp(1.0, -53) * 2 - 1);
  double lo = 1, hi = -1;
  for (int p = 0; p < 20000; ++p) {
    const double x = input_value(1, Tensor::q, 1, 1, p, 0, 0);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
}

TEST(FillInputs, RoundToBfloat16IsNearestEven) {
  // bf16 has 8 significant bits: around 1.0 the spacing is 2^-7.
  const double ulp = std::ldexp(1.0, -7);
  EXPECT_EQ(round_to(1.0 + ulp * 0.49, DType::bfloat16), 1.0);
  EXPECT_EQ(round_to(1.0 + ulp * 0.51, DType::bfloat16), 1.0 + ulp);
  EXPECT_EQ(round_to(1.0 + ulp * 0.5, DType::bfloat16), 1.0);            // tie to even (1.0)
  EXPECT_EQ(round_to(1.0 + ulp * 1.5, DType::bfloat16), 1.0 + 2 * ulp);  // tie to even (1+2ulp)
  EXPECT_EQ(round_to(-0.3, DType::bfloat16), -0.30078125);
  EXPECT_EQ(round_to(0.1, DType::float32), static_cast<double>(0.1f));
  EXPECT_EQ(round_to(0.1, DType::float64), 0.1);
}

TEST(FillInputs, ShardsFollowGlobalPositions) {
  // A strided shard holds exactly the rows of the whole sequence at its positions.
  const FillParams p{3, Tensor::v, 2, 5, DType::float32};
  std::vector<float> whole(12 * 2 * 5), shard(4 * 2 * 5);
  fill_inputs(whole.data(), {Segment{0, 1, 12}}, p);
  fill_inputs(shard.data(), {Segment{2, 3, 4}}, p);
  for (int i = 0; i < 4; ++i)
    for (int e = 0; e < 10; ++e) EXPECT_EQ(shard[i * 10 + e], whole[(2 + 3 * i) * 10 + e]);
}

}  // namespace
}  // namespace rb::kernels::ref
