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
      // Beyond S's bound: the bound named, not "not a token count" (issue 51).
      {"64k+2048G", "length 2 '2048G' is more than 2^40 = 1099511627776 tokens"},
      {"1e30", "length 1 '1e30' is more than 2^40"},
      {"fixed:1100000000000", "L '1100000000000' is more than 2^40"},
      // A subnormal sigma is inside [0, 8]: the rule it breaks is said.
      {"lognormal:4k:1e-310", "SIGMA '1e-310' is nonzero but under 2.2e-308, the smallest normal double"},
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

// Issue 51, item 8: S is the real tokens' sum. An S equal to the padded sum (56 for 5+30+13 at c = 2)
// was taken as the same configuration as S = 48, listed under both.
TEST(Documents, PaddingIsAddedToTheRealSumNeverTakenForIt) {
  const Config real = packed(48, 2, Split::doc_zigzag, "5+30+13", true);
  EXPECT_EQ(real.seq, 56);
  EXPECT_NO_THROW(check_documents(real));
  const Config padded = packed(56, 2, Split::doc_zigzag, "5+30+13", true);
  try {
    check_documents(padded);
    ADD_FAILURE() << "S = 56, the padded sum, was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "documents");
    EXPECT_NE(e.rule().find("the lengths sum to 48 tokens, not S = 56"), std::string::npos) << e.rule();
    EXPECT_NE(e.rule().find("S counts real tokens; --pad-documents adds the padding to it"), std::string::npos);
  }
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

// 128 bits of SHA-256 over the lengths joined by '+' (the value is Python's hashlib.sha256(b"64+32+16+16")).
TEST(Documents, TheDigestNamesTheLengthsOnly) {
  EXPECT_EQ(documents_digest({64, 32, 16, 16}), "49c4f52cd9466615a968d58f236b1412");
  EXPECT_EQ(documents_digest({64, 32, 16, 16}).size(), kDigestHex);
  EXPECT_NE(documents_digest({64, 32, 16, 16}), documents_digest({64, 32, 32}));
  EXPECT_NE(documents_digest({1, 23}), documents_digest({12, 3}));
  // Issue 51, item 7: one 2.12.0 digest (fe988c74), two lists.
  EXPECT_EQ(documents_digest({34, 379, 99}), "f8573a4f99d30001204b8e207359ec08");
  EXPECT_EQ(documents_digest({101, 234, 177}), "a6456380864dc74a4b2349d34c26ebb8");
  EXPECT_EQ(documents_summary({5, 6, 7, 8, 9}), "5+6+7+8+…");
  EXPECT_EQ(documents_summary({5, 6}), "5+6");
}

// An id spells short lists out (they cannot collide) and names long ones by count and digest.
TEST(Documents, TheIdIsTheLengthsWhereShort) {
  EXPECT_EQ(documents_id({34, 379, 99}), "34+379+99");
  EXPECT_NE(documents_id({34, 379, 99}), documents_id({101, 234, 177}));
  const std::vector<std::int64_t> many(100, 1000);
  EXPECT_EQ(documents_id(many), "n100-" + documents_digest(many));
  std::vector<std::int64_t> edge(16, 100);  // "100+…+100": 16 x 3 + 15 = 63 characters
  edge.push_back(1);                        // 65
  EXPECT_EQ(documents_id(std::vector<std::int64_t>(16, 100)).size(), 63u);
  EXPECT_EQ(documents_id(edge), "n17-" + documents_digest(edge));
}

}  // namespace
}  // namespace rb
