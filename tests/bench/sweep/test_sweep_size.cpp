// The product of a sweep's axes, formed before any configuration is built: counted without
// wrapping, and refused above kMaxConfigurations naming the axes and the product. Each configuration
// listed once, and never two of one id.
#include <cstdint>
#include <numeric>
#include <string>

#include <gtest/gtest.h>

#include "bench/sweep/distributed.hpp"
#include "bench/sweep/sweep_configurations.hpp"
#include "common/documents.hpp"
#include "reports/results/config_json.hpp"

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

// Issue 51, item 7: two 3-document lists of S = 512 whose 2.12.0 digests were one (FNV-1a's high 32
// bits, fe988c74). The sweep kept the first and dropped the second unseen.
TEST(SweepIds, ListsOfOneOldDigestAreTwoConfigurations) {
  SweepSpec s;
  s.seq = {512};
  s.cp = {1};
  s.split = {Split::contiguous};
  s.documents = {parse_document_spec("34+379+99", "x"), parse_document_spec("101+234+177", "x")};
  const auto configs = expand_configurations(s);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_NE(reports::config_id(configs[0]), reports::config_id(configs[1]));
}

// Two configurations that differ under one id are refused, both named; the same one twice is run once.
TEST(SweepIds, TwoConfigurationsOfOneIdAreRefusedNamingBoth) {
  Config a, b;
  a.seq = b.seq = 512;
  b.cp = a.cp + 1;
  auto by_seq = [](const Config& c) { return "s" + std::to_string(c.seq); };
  try {
    (void)listed_once({a, b}, by_seq);
    FAIL() << "two configurations of one id were listed";
  } catch (const AgreedInputError& e) {
    EXPECT_EQ(e.where(), "sweep");
    EXPECT_EQ(e.value(), "s512");
    EXPECT_NE(e.rule().find("configurations 1 (" + a.label() + ") and 2 (" + b.label() + ")"), std::string::npos)
        << e.rule();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_EQ(listed_once({a, a, b}).size(), 2u);
  // The same lengths from two specs (fixed:256 and 256+256) are one configuration.
  SweepSpec s;
  s.seq = {512};
  s.cp = {1};
  s.split = {Split::contiguous};
  s.documents = {parse_document_spec("fixed:256", "x"), parse_document_spec("256+256", "x")};
  EXPECT_EQ(expand_configurations(s).size(), 1u);
}

}  // namespace
}  // namespace rb::bench
