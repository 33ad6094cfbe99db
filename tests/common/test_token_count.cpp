// Token counts with binary suffixes and ranges of them (common/token_count.hpp): what each text reads
// as, and the rule each refused text is refused with.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/token_count.hpp"

namespace rb {
namespace {

constexpr std::int64_t kHi = std::int64_t{1} << 40;

TEST(TokenCount, ReadsSuffixesAsBinaryMultiples) {
  const std::pair<const char*, std::int64_t> table[] = {{"4096", 4096},     {"4k", 4096},    {"4K", 4096},
                                                        {"128k", 131072},   {"1M", 1048576}, {"1m", 1048576},
                                                        {"1G", 1073741824}, {"1.5k", 1536},  {"1e3", 1000},
                                                        {"1e3k", 1024000},  {"1024G", kHi},  {"1", 1},
                                                        {"0.5k", 512}};
  for (const auto& [text, value] : table) {
    SCOPED_TRACE(text);
    EXPECT_EQ(parse_token_count(text, "--seq", kHi), value);
  }
}

TEST(TokenCount, RefusesWhatIsNoCount) {
  for (const char* text : {"",      "k",      "0",   "-4k", "0x10", "5x",  "64q", "1.3k", "0.5", "1025G",
                           "1e999", "1e-320", " 4k", "4k ", "+4k",  "4kk", "inf", "nan",  "4 k", "04k"}) {
    SCOPED_TRACE(text);
    try {
      (void)parse_token_count(text, "--seq", kHi);
      ADD_FAILURE() << "taken";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "--seq");
      EXPECT_EQ(e.value(), text);
      EXPECT_NE(e.rule().find("whole number of tokens"), std::string::npos) << e.rule();
    }
  }
}

TEST(TokenCount, ExpandsRanges) {
  EXPECT_EQ(parse_token_values("1k:8k:x2", "--seq", kHi), (std::vector<std::int64_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(parse_token_values("1024:4096:+1024", "--seq", kHi), (std::vector<std::int64_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(parse_token_values("1k:4k:+1k", "--seq", kHi), (std::vector<std::int64_t>{1024, 2048, 3072, 4096}));
  // Up to the end, not past it; an end the steps miss is not reached.
  EXPECT_EQ(parse_token_values("1k:100k:x4", "--seq", kHi), (std::vector<std::int64_t>{1024, 4096, 16384, 65536}));
  EXPECT_EQ(parse_token_values("4k:4k:x2", "--seq", kHi), (std::vector<std::int64_t>{4096}));
  EXPECT_EQ(parse_token_values("4k", "--seq", kHi), (std::vector<std::int64_t>{4096}));
  // A factor as large as int64 stops after the first value, without overflowing.
  EXPECT_EQ(parse_token_values("1:1G:x9223372036854775807", "--seq", kHi), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(parse_token_values("1:1024G:x2", "--seq", kHi).size(), 41u);
  EXPECT_EQ(parse_token_values("1:4096:+1", "--seq", kHi).size(), kMaxRangeValues);
}

TEST(TokenCount, RefusesBadRanges) {
  const std::pair<const char*, const char*> table[] = {
      {"4k:1k:x2", "ends (1024) before it begins (4096)"},
      {"1k:8k:x1", "at least 2"},
      {"1k:8k:x0", "at least 2"},
      {"1k:8k:x1.5", "whole number"},
      {"1k:8k:x", "whole number"},
      {"1k:8k:+0", "at least 1"},
      {"1k:8k:2", "xFACTOR"},
      {"1k:8k", "BEGIN:END:xFACTOR"},
      {"1k:8k:x2:x2", "BEGIN:END:xFACTOR"},
      {"1:100000:+1", "100000 values; at most 4096"},
      {"0:8k:x2", "whole number of tokens"},
      {"1k:2048G:x2", "whole number of tokens"},
      {"1q:8k:x2", "whole number of tokens"},
  };
  for (const auto& [text, rule] : table) {
    SCOPED_TRACE(text);
    try {
      (void)parse_token_values(text, "--seq", kHi);
      ADD_FAILURE() << "taken";
    } catch (const InputError& e) {
      EXPECT_EQ(e.value(), text);
      EXPECT_NE(e.rule().find(rule), std::string::npos) << e.rule();
    }
  }
}

}  // namespace
}  // namespace rb
