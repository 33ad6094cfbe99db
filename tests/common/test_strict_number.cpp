// The strict number reader: a table of texts it takes (with the value) and of texts it refuses
// (with a word of the rule that must be named), then ranges, integers and the message's parts.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/strict_number.hpp"

namespace rb {
namespace {

struct Taken {
  const char* text;
  double value;
};

TEST(StrictNumber, TakesJsonNumbers) {
  const Taken table[] = {{"0", 0},        {"-0", 0},          {"12", 12},
                         {"0.5", 0.5},    {"1e3", 1000},      {"1E3", 1000},
                         {"1e+3", 1000},  {"2.5e-3", 0.0025}, {"-7.25", -7.25},
                         {"0e999999", 0}, {"1e308", 1e308},   {"2.2250738585072014e-308", 2.2250738585072014e-308},
                         {"100000", 1e5}, {"0.000001", 1e-6}};
  for (const auto& t : table) {
    SCOPED_TRACE(t.text);
    const double v = read_number(t.text, "--x").value;
    EXPECT_EQ(v, t.value);
    EXPECT_FALSE(std::signbit(v) && v == 0) << "-0 is read as 0";
  }
}

struct Refused {
  const char* text;
  const char* rule_word;  // a word the rule must contain
};

TEST(StrictNumber, RefusesEverythingElse) {
  const Refused table[] = {
      {"", "empty"},
      {"0x10", "hex"},
      {"0X1p3", "hex"},
      {"inf", "inf"},
      {"-inf", "inf"},
      {"nan", "nan"},
      {"NaN", "nan"},
      {"infinity", "inf"},
      {" 5", "space"},
      {"5 ", "space"},
      {"\t5", "space"},
      {"+5", "'+'"},
      {"5x", "JSON"},
      {"5%", "JSON"},
      {"1,5", "JSON"},
      {"1.", "JSON"},
      {".5", "JSON"},
      {"1e", "JSON"},
      {"1e+", "JSON"},
      {"--1", "JSON"},
      {"-", "JSON"},
      {"01", "JSON"},
      {"00.5", "JSON"},
      {"1e309", "largest double"},
      {"-1e309", "largest double"},
      {"1e999999999999999999999", "largest double"},
      {"1.8e308", "largest double"},
      {"1e-320", "smallest normal"},
      {"4.9e-324", "smallest normal"},
      {"1e-400", "smallest normal"},
      {"-1e-320", "smallest normal"},
      {"0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
       "000000000000000000000000000000000001",
       "smallest normal"},
  };
  for (const auto& t : table) {
    SCOPED_TRACE(t.text);
    try {
      read_number(t.text, "--x");
      FAIL() << "taken";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "--x");
      EXPECT_NE(e.rule().find(t.rule_word), std::string::npos) << e.rule();
    }
  }
  EXPECT_THROW(read_number(std::string_view("5\0", 2), "--x"), InputError);
}

TEST(StrictNumber, LongTextsAreReadExactly) {
  // A thousand digits is still one number: from_chars rounds it as any shorter spelling.
  EXPECT_EQ(read_number("1" + std::string(300, '0'), "--x").value, 1e300);
  EXPECT_EQ(read_number("0." + std::string(299, '0') + "1", "--x").value, 1e-300);
  EXPECT_EQ(read_number(std::string(1000, '9').insert(1, "."), "--x").value, 10);
}

TEST(StrictNumber, RangesAndTheirMessages) {
  const NumberRange link{.lo = 0, .hi = 1e6, .least_nonzero = 1e-3, .unit = " Gbit/s", .zero_means = "unpaced"};
  EXPECT_EQ(parse_number("0", "--link-gbps", link), 0);
  EXPECT_EQ(parse_number("1e-3", "--link-gbps", link), 1e-3);
  EXPECT_EQ(parse_number("1e6", "--link-gbps", link), 1e6);
  for (const char* bad : {"1e-4", "1e-300", "1000001", "-1"}) {
    SCOPED_TRACE(bad);
    try {
      parse_number(bad, "--link-gbps", link);
      FAIL() << "taken";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "--link-gbps");
      EXPECT_EQ(e.value(), bad);
      EXPECT_EQ(e.rule(), "must be 0 or a number in [0.001, 1000000] Gbit/s (0: unpaced)");
    }
  }
  // A refusal by form also says the range, so one message says everything that is required.
  try {
    parse_number("1e-320", "--threshold", NumberRange{.lo = 0, .hi = 100});
    FAIL() << "taken";
  } catch (const InputError& e) {
    EXPECT_NE(e.rule().find("smallest normal"), std::string::npos);
    EXPECT_NE(e.rule().find("[0, 100]"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  // The longest rule a flag gives, a refused form before its range, stays whole in the error line,
  // which cuts a rule at 160 bytes.
  const NumberRange memory{.lo = 0,
                           .hi = 1048576,
                           .least_nonzero = 1e-9,
                           .unit = " GiB",
                           .zero_means = "90% of available"};
  for (const char* bad : {"0x10", "1e-320", "1e999", "2e6"}) {
    SCOPED_TRACE(bad);
    try {
      parse_number(bad, "--memory-limit", memory);
      FAIL() << "taken";
    } catch (const InputError& e) {
      EXPECT_LE(e.rule().size(), 160u) << e.rule();
      EXPECT_NE(e.rule().find("[1e-09, 1048576] GiB (0: 90% of available)"), std::string::npos) << e.rule();
    }
  }
  const NumberRange alpha{.lo = 0, .hi = 1, .lo_open = true, .hi_open = true};
  EXPECT_THROW(parse_number("0", "--alpha", alpha), InputError);
  EXPECT_THROW(parse_number("1", "--alpha", alpha), InputError);
  EXPECT_EQ(parse_number("0.05", "--alpha", alpha), 0.05);
  EXPECT_EQ(describe(alpha), "must be a number in (0, 1)");
}

TEST(StrictNumber, IntegersAreExactAndMayBeWrittenAsDecimals) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(parse_integer("1e3", "--n", 1, 1 << 24), 1000);
  EXPECT_EQ(parse_integer("1.5e3", "--n", 1, 1 << 24), 1500);
  EXPECT_EQ(parse_integer("2.50e1", "--n", 1, 100), 25);
  EXPECT_EQ(parse_integer("1000e-3", "--n", 1, 100), 1);
  EXPECT_EQ(parse_integer("0e99", "--n", 0, 100), 0);
  EXPECT_EQ(parse_integer("9223372036854775807", "--n", 0, kMax), kMax);  // not 2^63 through a double
  EXPECT_EQ(parse_integer("-9223372036854775808", "--n", kMin, 0), kMin);
  EXPECT_EQ(parse_integer("9.223372036854775807e18", "--n", 0, kMax), kMax);
  for (const char* bad : {"9223372036854775808", "1e19", "1e999", "0.5", "1.5", "1e-1", "12.0001", "0x10", "1e-320"}) {
    SCOPED_TRACE(bad);
    try {
      parse_integer(bad, "--n", 0, kMax);
      FAIL() << "taken";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "--n");
      EXPECT_NE(e.rule().find("must be an integer in [0, 9223372036854775807]"), std::string::npos) << e.rule();
    }
  }
  try {
    parse_integer("0", "--n", 1, 10);
    FAIL() << "taken";
  } catch (const InputError& e) {
    EXPECT_EQ(e.rule(), "must be a positive integer, at most 10 (1e3 is 1000)");
  }
  EXPECT_THROW(parse_integer("11", "--n", 1, 10), InputError);
  EXPECT_EQ(read_number("1e18", "--n").integer, std::int64_t{1000000000000000000});
  EXPECT_FALSE(read_number("1e19", "--n").integer.has_value());
  EXPECT_FALSE(read_number("0.5", "--n").integer.has_value());
}

TEST(StrictNumber, WhatLooksLikeANumber) {
  for (const char* t : {"5", "-1", "+1", ".5", "0x10"}) EXPECT_TRUE(looks_like_number(t)) << t;
  for (const char* t : {"", "ib-ndr", "inf", " 5"}) EXPECT_FALSE(looks_like_number(t)) << t;
}

}  // namespace
}  // namespace rb
