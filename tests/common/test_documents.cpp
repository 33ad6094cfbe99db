// Document specs (common/documents.hpp, docs/design.md §3c): what --documents accepts and refuses in
// one line, generators stable per seed as the design states them, padding for doc-zigzag, and the
// digest of the lengths.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <numeric>

#include "common/documents.hpp"
#include "common/error.hpp"

namespace rb {
namespace {

__extension__ typedef unsigned __int128 u128;

std::int64_t sum(const std::vector<std::int64_t>& v) { return std::accumulate(v.begin(), v.end(), std::int64_t{0}); }

TEST(Documents, ExplicitLengthsTakeTokenCounts) {
  const auto s = parse_document_spec("64k+32k+16k+16k", "--documents");
  EXPECT_EQ(s.kind, DocumentSpec::Kind::lengths);
  EXPECT_EQ(s.lengths, (std::vector<std::int64_t>{65536, 32768, 16384, 16384}));
  EXPECT_EQ(document_lengths(s, 131072, 7), s.lengths);
  EXPECT_EQ(parse_document_spec("4096", "x").lengths, (std::vector<std::int64_t>{4096}));
  EXPECT_EQ(parse_document_spec("none", "x").kind, DocumentSpec::Kind::none);
  EXPECT_TRUE(document_lengths(parse_document_spec("none", "x"), 100, 1).empty());
}

// Each bad spec: one line naming the field, the value and the rule.
TEST(Documents, BadSpecsAreRefusedInOneLineNamingTheRule) {
  const std::vector<std::pair<std::string, std::string>> bad{
      {"64k+0+16k", "length 2 is 0; a document holds at least one token"},
      {"64k++16k", "a length is missing between '+' signs"},
      {"64k+x", "length 2 'x' is not a token count"},
      {"", "is empty"},
      {"uniform:8k:1k", "MIN (8192) exceeds MAX (1024)"},
      {"uniform:0:1k", "MIN is 0; a document holds at least one token"},
      {"uniform:1k", "the uniform generator is uniform:MIN:MAX"},
      {"lognormal:4k:-1", "SIGMA '-1' must be a number in [0, 8]"},
      {"lognormal:4k:9", "SIGMA '9' must be a number in [0, 8]"},
      {"fixed:0", "L is 0; a document holds at least one token"},
      {"fixed:1k:2k", "the fixed generator is fixed:L"},
      {"zipf:1:2", "unknown generator 'zipf'"},
  };
  for (const auto& [text, rule] : bad) {
    try {
      (void)parse_document_spec(text, "--documents");
      ADD_FAILURE() << text << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "--documents") << text;
      EXPECT_EQ(e.value(), text);
      EXPECT_NE(e.rule().find(rule), std::string::npos) << text << ": " << e.rule();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

// docs/design.md §3c's draws, written out again from the text: u_i = splitmix64(splitmix64(seed ^
// 4·2^60) + i); uniform takes MIN + floor(u·(MAX − MIN + 1) / 2^64); lognormal one Box–Muller
// normal from u_2i and u_2i+1.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
std::uint64_t u(std::uint64_t seed, std::uint64_t i) { return mix(mix(seed ^ (std::uint64_t{4} << 60)) + i); }

TEST(Documents, GeneratorsDrawAsTheDesignStatesStablePerSeed) {
  const std::int64_t S = 1 << 16;
  for (const std::uint64_t seed : {1ull, 2ull, 12345ull}) {
    const auto uni = document_lengths(parse_document_spec("uniform:100:3k", "x"), S, seed);
    ASSERT_EQ(sum(uni), S);
    for (std::size_t i = 0; i + 1 < uni.size(); ++i) {
      const auto span = static_cast<u128>(3072 - 100 + 1);
      EXPECT_EQ(uni[i], 100 + static_cast<std::int64_t>((static_cast<u128>(u(seed, i)) * span) >> 64));
    }
    const auto logn = document_lengths(parse_document_spec("lognormal:1k:0.5", "x"), S, seed);
    ASSERT_EQ(sum(logn), S);
    for (std::size_t i = 0; i + 1 < logn.size(); ++i) {
      const double x1 = static_cast<double>((u(seed, 2 * i) >> 11) + 1) * 0x1.0p-53;
      const double x2 = static_cast<double>(u(seed, 2 * i + 1) >> 11) * 0x1.0p-53;
      const double z = std::sqrt(-2 * std::log(x1)) * std::cos(2 * std::numbers::pi * x2);
      EXPECT_EQ(logn[i], std::max<std::int64_t>(1, std::llround(1024 * std::exp(0.5 * z))));
    }
    // The same seed draws the same lengths again; another seed others.
    EXPECT_EQ(document_lengths(parse_document_spec("lognormal:1k:0.5", "x"), S, seed), logn);
    EXPECT_NE(document_lengths(parse_document_spec("lognormal:1k:0.5", "x"), S, seed + 1), logn);
  }
  // Seed 1's first uniform lengths, as docs/design.md §3c lists them: a change of formula shows here.
  const auto first = document_lengths(parse_document_spec("uniform:100:300", "x"), 4096, 1);
  EXPECT_EQ(std::vector<std::int64_t>(first.begin(), first.begin() + 4),
            (std::vector<std::int64_t>{232, 174, 257, 175}));
}

TEST(Documents, TheLastDocumentIsCutToFillS) {
  const auto fixed = document_lengths(parse_document_spec("fixed:1000", "x"), 4096, 1);
  EXPECT_EQ(fixed, (std::vector<std::int64_t>{1000, 1000, 1000, 1000, 96}));
  const auto one = document_lengths(parse_document_spec("uniform:5k:8k", "x"), 4096, 1);
  EXPECT_EQ(one, (std::vector<std::int64_t>{4096}));
}

Config packed(std::int64_t S, int c, Split split, const std::string& spec, bool pad) {
  Config cfg;
  cfg.seq = S;
  cfg.cp = c;
  cfg.split = split;
  set_documents(cfg, parse_document_spec(spec, "--documents"), pad);
  return cfg;
}

// doc-zigzag pads each document at its end to a multiple of 2c; S becomes what the ranks hold and the
// padding is counted apart. No other split pads.
TEST(Documents, PaddingMakesTheRanksSAndIsCountedApart) {
  const Config z = packed(100, 4, Split::doc_zigzag, "40+7+53", true);
  EXPECT_EQ(z.seq, 40 + 8 + 56);
  EXPECT_EQ(document_extents(z), (std::vector<std::int64_t>{40, 8, 56}));
  EXPECT_EQ(real_tokens(z), 100);
  EXPECT_EQ(padding_tokens(z), 4);
  EXPECT_NO_THROW(check_documents(z));
  const Config c = packed(100, 4, Split::contiguous, "40+7+53", true);
  EXPECT_EQ(c.seq, 100);
  EXPECT_EQ(padding_tokens(c), 0);
  const Config unpadded = packed(100, 4, Split::doc_zigzag, "40+7+53", false);
  EXPECT_EQ(unpadded.seq, 100);
  EXPECT_EQ(document_extents(unpadded), (std::vector<std::int64_t>{40, 7, 53}));
}

TEST(Documents, LengthsThatDoNotFillSAreRefused) {
  const Config short_of = packed(100, 2, Split::contiguous, "40+50", false);
  try {
    check_documents(short_of);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "documents");
    EXPECT_EQ(e.value(), "40+50");
    EXPECT_NE(e.rule().find("the lengths sum to 90 tokens, not S = 100"), std::string::npos) << e.rule();
  }
  // A generator that needs more than kMaxDocuments documents cannot fill S.
  const Config tiny = packed(kMaxDocuments + 10, 2, Split::contiguous, "fixed:1", false);
  EXPECT_EQ(static_cast<std::int64_t>(tiny.documents.lengths.size()), kMaxDocuments);
  try {
    check_documents(tiny);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(e.rule().find("the generator cannot fill S"), std::string::npos) << e.rule();
  }
}

TEST(Documents, TheDigestNamesTheLengthsOnly) {
  EXPECT_EQ(documents_digest({64, 32, 16, 16}), "d74bc4de");
  EXPECT_EQ(documents_digest({64, 32, 16, 16}).size(), 8u);
  EXPECT_NE(documents_digest({64, 32, 16, 16}), documents_digest({64, 32, 32}));
  EXPECT_NE(documents_digest({1, 23}), documents_digest({12, 3}));
  EXPECT_EQ(documents_summary({5, 6, 7, 8, 9}), "5+6+7+8+…");
  EXPECT_EQ(documents_summary({5, 6}), "5+6");
}

}  // namespace
}  // namespace rb
