// Packed documents (docs/design.md §3c): what `--documents` and a profile's `sweep.documents` say, the
// lengths they give for a sequence of S tokens, and what padding makes of them. The mask rule the
// documents impose is common/document_mask.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.hpp"

namespace rb {

// The most documents one configuration may hold: each is a run of every rank's pieces, and a
// generator that needs more to fill S is a mistake (fixed:1 at S = 10M).
inline constexpr std::int64_t kMaxDocuments = std::int64_t{1} << 20;
// The widest lognormal a mix may ask for: exp(8·sigma) beyond this overflows any token count.
inline constexpr double kMaxLognormalSigma = 8.0;

// One value of the documents axis. `none`: one causal sequence (no documents).
struct DocumentSpec {
  enum class Kind { none, lengths, uniform, lognormal, fixed };
  Kind kind = Kind::none;
  std::string text;                   // as written; empty for none
  std::vector<std::int64_t> lengths;  // Kind::lengths
  std::int64_t lo = 0, hi = 0;        // uniform: MIN and MAX; fixed: L in lo; lognormal: MEDIAN in lo
  double sigma = 0;                   // lognormal

  bool generated() const { return kind == Kind::uniform || kind == Kind::lognormal || kind == Kind::fixed; }
};

// Reads "none", explicit lengths joined by '+' ("64k+32k+16k", token counts as --seq takes them),
// "uniform:MIN:MAX", "lognormal:MEDIAN:SIGMA" or "fixed:L". Throws InputError(where, text, rule)
// naming the rule broken: a zero length, a length beyond 2^40 (the bound named), MIN > MAX, a sigma
// out of [0, 8] or subnormal (the rule said), an unknown generator.
DocumentSpec parse_document_spec(std::string_view text, std::string_view where);

// The lengths for S tokens: the explicit ones as given; a generator's drawn with `seed` until S is
// filled, the last document cut to fit (the formula is docs/design.md §3c's). A generator stops at
// kMaxDocuments, its sum then short of S (check_documents refuses it).
std::vector<std::int64_t> document_lengths(const DocumentSpec& spec, std::int64_t S, std::uint64_t seed);

// Sets cfg.documents from `spec` for cfg.seq real tokens, drawn with cfg.seed, and where the
// configuration pads (pads_documents) makes cfg.seq the padded S the ranks hold. S is the real
// tokens' sum, never the padded one: lengths that do not sum to the S given are left unpadded, and
// check_documents refuses them (so one configuration is never listed under two S values).
void set_documents(Config& cfg, const DocumentSpec& spec, bool pad);

// Whether a configuration pads its documents: asked to, under the split that needs it (doc-zigzag).
bool pads_documents(const Config& cfg);
// The tokens each document occupies in the sequence the ranks hold: its length, or with padding
// the next multiple of 2c. Empty without documents.
std::vector<std::int64_t> document_extents(const Config& cfg);
// Real tokens (the sum of the lengths; S without documents) and padding tokens (S − real).
std::int64_t real_tokens(const Config& cfg);
std::int64_t padding_tokens(const Config& cfg);

// Throws InputError ("documents", the spec, the rule) unless the documents fill cfg.seq exactly: the
// explicit lengths sum to S, a generator reached S, at most kMaxDocuments. Nothing without documents.
void check_documents(const Config& cfg);

// The hex digits of documents_digest: 128 bits, beyond any search for a collision.
inline constexpr std::size_t kDigestHex = 32;
// The longest list of lengths an id spells out ("5+30+13"); a longer one is named by its digest.
inline constexpr std::size_t kIdLengthsChars = 64;

// A digest of the lengths: the first kDigestHex hex digits of SHA-256 over their decimal text joined
// by '+' ("5+30+13"). Two lists share one only by a SHA-256 collision.
std::string documents_digest(const std::vector<std::int64_t>& lengths);

// The part of a configuration's id that names its documents (reports/results/config_json.cpp): the
// lengths joined by '+' where that is at most kIdLengthsChars characters ("5+30+13"), else "n", how
// many, '-' and documents_digest ("n4096-3fa0…"). Two lists never share one: short ones are
// themselves, long ones differ in their digest.
std::string documents_id(const std::vector<std::int64_t>& lengths);

// "1024+512+…" for people: the first few lengths and how many there are.
std::string documents_summary(const std::vector<std::int64_t>& lengths);

}  // namespace rb
