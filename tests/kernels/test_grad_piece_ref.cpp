// The backward piece's CPU twins (kernels/grad_piece_ref.hpp) against what each must compute,
// worked out here independently: bf16 rounding to nearest even against the nearest of the two bf16
// neighbours in double (ties to the even one), with its edge cases; the stats packing against the
// BHSD index; row adds on integers (exact in fp32) with strides and untouched gaps; the refusals.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "kernels/grad_piece_ref.hpp"

namespace rb::kernels::ref {
namespace {

// The nearest bf16 to a finite x by brute force: the truncation and the next bf16 up in magnitude,
// compared in double; a tie goes to the one whose last kept bit is 0.
float nearest_bf16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const float lo = std::bit_cast<float>(u & 0xFFFF0000u), hi = std::bit_cast<float>((u & 0xFFFF0000u) + 0x10000u);
  const double dlo = std::fabs(static_cast<double>(x) - lo), dhi = std::fabs(static_cast<double>(hi) - x);
  if (dlo != dhi) return dlo < dhi ? lo : hi;
  return (std::bit_cast<std::uint32_t>(lo) >> 16 & 1u) == 0 ? lo : hi;
}

TEST(GradPieceRef, RoundsToTheNearestBf16TiesToEven) {
  EXPECT_EQ(round_bf16(1.0f), 1.0f);
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f), 1.0f);                       // half an ulp above 1: to even, down
  EXPECT_EQ(round_bf16(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);         // 1.5 ulp: to even, up
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);  // past the tie: up
  EXPECT_EQ(round_bf16(-1.0f - 3 * 0x1p-8f), -1.0f - 0x1p-6f);
  EXPECT_EQ(round_bf16(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
  EXPECT_EQ(round_bf16(-std::numeric_limits<float>::infinity()), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(round_bf16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(round_bf16(std::numeric_limits<float>::max()), std::numeric_limits<float>::infinity());
  EXPECT_EQ(round_bf16(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(round_bf16(-0.0f)));
  std::mt19937 g(5);
  std::uniform_int_distribution<std::uint32_t> bits;
  int checked = 0;
  while (checked < 200000) {
    const float x = std::bit_cast<float>(bits(g));
    if (!std::isfinite(x) || std::fabs(x) >= 0x1.fep127f) continue;  // the largest bf16's half ulp: overflow
    ASSERT_EQ(std::bit_cast<std::uint32_t>(round_bf16(x)), std::bit_cast<std::uint32_t>(nearest_bf16(x))) << x;
    ++checked;
  }
}

TEST(GradPieceRef, CastRoundsEveryElement) {
  const std::vector<float> src = {1.0f + 0x1p-8f, -2.5f, 3.14159f, 0.0f};
  std::vector<float> dst(src.size(), -7.0f);
  cast_bf16({src.data(), dst.data(), 3});
  EXPECT_EQ(dst[0], 1.0f);
  EXPECT_EQ(dst[1], -2.5f);
  EXPECT_EQ(dst[2], nearest_bf16(3.14159f));
  EXPECT_EQ(dst[3], -7.0f) << "past n";
}

TEST(GradPieceRef, PacksAPiecesRowsHeadMajor) {
  const int hq = 3;
  const std::int64_t sq = 10, row0 = 4, rows = 5;
  std::vector<float> lse(static_cast<std::size_t>(sq * hq));
  for (std::size_t i = 0; i < lse.size(); ++i) lse[i] = static_cast<float>(i) + 0.5f;
  std::vector<float> stats(static_cast<std::size_t>(rows * hq), -1.0f);
  pack_stats({lse.data(), stats.data(), row0, rows, hq});
  // [1, hq, rows, 1] strides {hq·rows, rows, 1, 1}: head h's rows are contiguous.
  for (int h = 0; h < hq; ++h)
    for (std::int64_t i = 0; i < rows; ++i)
      EXPECT_EQ(stats[static_cast<std::size_t>(h * rows + i)], lse[static_cast<std::size_t>((row0 + i) * hq + h)]);
}

TEST(GradPieceRef, AddsRowsThroughTheirStridesAndLeavesTheGaps) {
  const std::int64_t rows = 4, width = 3, ds = 5, ss = 7;
  std::vector<float> dst(static_cast<std::size_t>(rows * ds)), src(static_cast<std::size_t>(rows * ss));
  for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = static_cast<float>(i);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(100 * i);
  const std::vector<float> before = dst;
  add_rows({dst.data(), src.data(), rows, width, ds, ss});
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < ds; ++c) {
      const auto i = static_cast<std::size_t>(r * ds + c);
      const float want = c < width ? before[i] + src[static_cast<std::size_t>(r * ss + c)] : before[i];
      EXPECT_EQ(dst[i], want) << "row " << r << " col " << c;
    }
}

TEST(GradPieceRef, RefusesWhatTheKernelsRefuse) {
  float a[4] = {}, b[4] = {};
  EXPECT_THROW(cast_bf16({a, b, -1}), Error);
  EXPECT_THROW(cast_bf16({nullptr, b, 2}), Error);
  EXPECT_NO_THROW(cast_bf16({nullptr, nullptr, 0}));
  EXPECT_THROW(pack_stats({a, b, -1, 1, 1}), Error);
  EXPECT_THROW(pack_stats({a, b, 0, 1, 0}), Error);
  EXPECT_THROW(add_rows({a, b, 2, 3, 2, 3}), Error) << "a destination stride shorter than the width";
  EXPECT_THROW(add_rows({a, nullptr, 1, 1, 1, 1}), Error);
}

}  // namespace
}  // namespace rb::kernels::ref
