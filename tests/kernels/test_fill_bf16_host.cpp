// Host-side checks of the device fill and merge kernels' arithmetic, with the CUDA headers but no
// GPU: __double2bfloat16 (which the fill kernel calls on the device; cuda_bf16.h implements it for
// the host too) rounds exactly as ref::round_to(x, bfloat16), on the docs/design.md §3 input values and on
// ties; fill_index walks (row, head, dim) in the twin's order; merge lanes stay inside one warp.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include <cuda_bf16.h>

#include "kernels/fill_inputs.cuh"
#include "kernels/merge_partials.cuh"

namespace rb::kernels {
namespace {

double device_rounding(double x) { return static_cast<double>(__bfloat162float(__double2bfloat16(x))); }

TEST(FillBf16Host, DeviceRoundingMatchesTheTwinOnInputValues) {
  for (std::uint64_t seed : {1ull, 42ull})
    for (auto t : {ref::Tensor::q, ref::Tensor::k, ref::Tensor::v})
      for (std::int64_t p = 0; p < 300; ++p)
        for (int h = 0; h < 2; ++h)
          for (int d = 0; d < 64; d += 3) {
            const double x = ref::input_value(seed, t, 2, 64, p, h, d);
            ASSERT_EQ(device_rounding(x), ref::round_to(x, DType::bfloat16)) << x;
          }
}

TEST(FillBf16Host, DeviceRoundingMatchesTheTwinOnTies) {
  std::mt19937_64 g(3);
  for (int i = 0; i < 100000; ++i) {
    // A bf16 value plus exactly half an ulp (a tie), or random low bits.
    std::uint64_t b = std::bit_cast<std::uint64_t>(std::uniform_real_distribution<double>(-1, 1)(g));
    if (i % 2 == 0) b = (b & ~((std::uint64_t{1} << 45) - 1)) | (std::uint64_t{1} << 44);
    const double x = std::bit_cast<double>(b);
    ASSERT_EQ(device_rounding(x), ref::round_to(x, DType::bfloat16)) << x;
  }
}

TEST(FillBf16Host, FillIndexWalksRowsHeadsDims) {
  std::int64_t e = 0;
  for (std::int64_t i = 0; i < 5; ++i)
    for (int h = 0; h < 3; ++h)
      for (int d = 0; d < 7; ++d, ++e) ASSERT_EQ(fill_index(e, 3, 7), (FillIndex{i, h, d}));
}

TEST(FillBf16Host, MergeLanesFitAWarp) {
  EXPECT_EQ(merge_lanes_per_line(128), 32);
  EXPECT_EQ(merge_lanes_per_line(64), 16);
  EXPECT_EQ(merge_lanes_per_line(36), 8);
  EXPECT_EQ(merge_lanes_per_line(4), 1);
  for (int d = 4; d <= 512; d += 4) {
    const int g = merge_lanes_per_line(d);
    EXPECT_EQ(32 % g, 0);
    EXPECT_LE(g, d / 4);
  }
}

}  // namespace
}  // namespace rb::kernels
