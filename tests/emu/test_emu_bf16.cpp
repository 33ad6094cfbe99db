// bf16 rounding on the host, as the emulated kernels' CPU twins see it: cuda_bf16.h's
// __float2bfloat16_rn (host implementation, no GPU and no emulator) rounds to nearest, ties to even,
// on a table of ties and near-ties, at the largest finite value (a tie there rounds to infinity),
// on infinities, NaNs (a NaN whose payload lies only in the discarded bits stays a NaN) and
// subnormals; it agrees with the bit-level rounding rule on every sign, exponent and mantissa; and
// bf16 -> float -> bf16 is the identity on every non-NaN bf16.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include <cuda_bf16.h>

namespace rb::emu {
namespace {

std::uint16_t bf16_rn_bits(std::uint32_t float_bits) {
  const __nv_bfloat16 b = __float2bfloat16_rn(std::bit_cast<float>(float_bits));
  return std::bit_cast<std::uint16_t>(b);
}

bool bf16_bits_are_nan(std::uint16_t b) { return (b & 0x7F80u) == 0x7F80u && (b & 0x007Fu) != 0; }

// Round to nearest even at bit 16, the rule written on the bits; for finite inputs and infinities.
std::uint16_t bf16_reference_rn(std::uint32_t f) {
  const std::uint32_t lsb = (f >> 16) & 1u;
  return static_cast<std::uint16_t>((f + 0x7FFFu + lsb) >> 16);
}

bool float_bits_are_nan(std::uint32_t f) { return (f & 0x7F800000u) == 0x7F800000u && (f & 0x007FFFFFu) != 0; }

struct Bf16Case {
  std::uint32_t in;
  std::uint16_t out;
  const char* what;
};

TEST(EmuBf16, RoundsTiesToEvenOnATable) {
  const Bf16Case cases[] = {
      {0x3F800000u, 0x3F80u, "1.0 exactly"},
      {0x3F808000u, 0x3F80u, "1 + 2^-8: a tie, the lower neighbour is even"},
      {0x3F818000u, 0x3F82u, "a tie whose lower neighbour 0x3F81 is odd: up"},
      {0x3F808001u, 0x3F81u, "just above a tie: up"},
      {0x3F807FFFu, 0x3F80u, "just below a tie: down"},
      {0x3F81FFFFu, 0x3F82u, "just below the next value up: up"},
      {0xBF808000u, 0xBF80u, "-(1 + 2^-8): ties to even in magnitude"},
      {0xBF818000u, 0xBF82u, "negative tie, odd lower neighbour: away from zero"},
      {0x3FFF8000u, 0x4000u, "a tie at the top of a binade carries into the exponent"},
      {0x40490FDBu, 0x4049u, "pi"},
      {0x3DCCCCCDu, 0x3DCDu, "0.1"},
      {0x7F7F7FFFu, 0x7F7Fu, "just below the tie above the largest finite bf16: stays finite"},
      {0x7F7F8000u, 0x7F80u, "the tie above the largest finite bf16 (odd): rounds to +inf"},
      {0x7F7FFFFFu, 0x7F80u, "FLT_MAX: +inf"},
      {0xFF7FFFFFu, 0xFF80u, "-FLT_MAX: -inf"},
      {0x7F800000u, 0x7F80u, "+inf"},
      {0xFF800000u, 0xFF80u, "-inf"},
      {0x00000000u, 0x0000u, "+0"},
      {0x80000000u, 0x8000u, "-0 keeps its sign"},
      {0x00008000u, 0x0000u, "a subnormal tie with an even lower neighbour (zero)"},
      {0x00018000u, 0x0002u, "a subnormal tie with an odd lower neighbour: up"},
      {0x00008001u, 0x0001u, "just above a subnormal tie: the smallest bf16 subnormal"},
      {0x00007FFFu, 0x0000u, "just below the smallest subnormal's half: zero"},
      {0x00000001u, 0x0000u, "the smallest float subnormal: zero"},
      {0x80008000u, 0x8000u, "a negative subnormal tie: -0"},
      {0x80018000u, 0x8002u, "a negative subnormal tie, odd lower neighbour"},
      {0x00410000u, 0x0041u, "a bf16 subnormal exactly: not flushed"},
      {0x007F8000u, 0x0080u, "the tie between the largest subnormal (odd) and the smallest normal"},
      {0x007F7FFFu, 0x007Fu, "just below it: stays subnormal"},
      {0x00800000u, 0x0080u, "the smallest normal"},
  };
  for (const Bf16Case& c : cases) EXPECT_EQ(bf16_rn_bits(c.in), c.out) << c.what << std::hex << ": 0x" << c.in;
}

TEST(EmuBf16, NaNsStayNaNs) {
  // 0x7F800001's payload lies only in the 16 bits rounding drops: rounding the bits as a number
  // would give 0x7F80, infinity. Every one of these must come back a NaN.
  for (std::uint32_t in :
       {0x7FC00000u, 0x7F800001u, 0x7F808000u, 0x7F80FFFFu, 0x7FFFFFFFu, 0xFFC00000u, 0xFF800001u, 0x7FBFFFFFu}) {
    const std::uint16_t out = bf16_rn_bits(in);
    EXPECT_TRUE(bf16_bits_are_nan(out)) << std::hex << "0x" << in << " -> 0x" << out;
  }
  EXPECT_TRUE(std::isnan(__bfloat162float(__float2bfloat16_rn(std::bit_cast<float>(0x7F800001u)))));
}

TEST(EmuBf16, AgreesWithTheBitRuleOnEverySignExponentAndMantissa) {
  // Every high half (sign, exponent, 7 mantissa bits) with the low halves that decide rounding:
  // zero, one, just below, at and just above the tie, all ones, and random ones.
  std::mt19937 gen(7);
  std::uniform_int_distribution<std::uint32_t> low(0, 0xFFFF);
  for (std::uint32_t hi = 0; hi <= 0xFFFFu; ++hi)
    for (std::uint32_t lo : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu, low(gen), low(gen)}) {
      const std::uint32_t in = (hi << 16) | lo;
      const std::uint16_t got = bf16_rn_bits(in);
      if (float_bits_are_nan(in)) {
        ASSERT_TRUE(bf16_bits_are_nan(got)) << std::hex << "0x" << in;
      } else {
        ASSERT_EQ(got, bf16_reference_rn(in)) << std::hex << "0x" << in;
      }
    }
}

TEST(EmuBf16, WidensExactlyAndRoundTrips) {
  for (std::uint32_t b = 0; b <= 0xFFFFu; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float wide = __bfloat162float(std::bit_cast<__nv_bfloat16>(bits));
    if (bf16_bits_are_nan(bits)) {
      ASSERT_TRUE(std::isnan(wide)) << std::hex << b;
      continue;
    }
    ASSERT_EQ(std::bit_cast<std::uint32_t>(wide), b << 16) << std::hex << b;  // widening is exact
    ASSERT_EQ(bf16_rn_bits(b << 16), bits) << std::hex << b;
  }
}

TEST(EmuBf16, TheDefaultConversionIsRoundToNearestEven) {
  for (std::uint32_t in : {0x3F808000u, 0x3F818000u, 0x3F808001u, 0x00018000u, 0x7F7F8000u})
    EXPECT_EQ(std::bit_cast<std::uint16_t>(__float2bfloat16(std::bit_cast<float>(in))), bf16_rn_bits(in))
        << std::hex << "0x" << in;
}

}  // namespace
}  // namespace rb::emu
