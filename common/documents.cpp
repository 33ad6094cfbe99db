// Document specs, their generators, padding and the digest (see documents.hpp).
#include "common/documents.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "common/strict_number.hpp"
#include "common/sweep_limits.hpp"
#include "common/token_count.hpp"

namespace rb {
namespace {

__extension__ typedef unsigned __int128 u128;

constexpr std::string_view kForms =
    "documents are lengths joined by '+' (64k+32k+16k), uniform:MIN:MAX, lognormal:MEDIAN:SIGMA, fixed:L or none";

[[noreturn]] void refuse(std::string_view where, std::string_view text, const std::string& rule) {
  throw InputError(std::string(where), std::string(text), rule);
}

// docs/design.md §3's splitmix64 (kernels/fill_inputs_ref.hpp has the same for the inputs; common/
// cannot include kernels/). The documents' draws start from a mix of the seed with stream 4 (after
// Q, K, V and dO), so seeds that differ in a low bit draw unrelated lengths, not the same ones in
// another order (as seed ^ i alone would).
constexpr std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
constexpr std::uint64_t kDocumentStream = std::uint64_t{4} << 60;

std::uint64_t draw(std::uint64_t seed, std::uint64_t i) { return splitmix64(splitmix64(seed ^ kDocumentStream) + i); }

// Whether `part` reads as a count of more than kMaxSeq tokens (its k, M or G suffix included), so
// that the refusal names the bound rather than the grammar ("is not a token count" of 2048G sent the
// user looking for a typo).
bool beyond_bound(std::string_view part) {
  double scale = 1;
  if (!part.empty()) {
    const char last = part.back();
    scale = last == 'k' || last == 'K'   ? 0x1p10
            : last == 'm' || last == 'M' ? 0x1p20
            : last == 'g' || last == 'G' ? 0x1p30
                                         : 1;
    if (scale != 1) part.remove_suffix(1);
  }
  if (!written_as_number(part)) return false;
  try {
    return read_number(part, "").value * scale > static_cast<double>(kMaxSeq);
  } catch (const InputError&) {
    return false;  // beyond a double or subnormal: the grammar's message says so
  }
}

// A token count of a spec, with the spec's rule in the error.
std::int64_t count_of(std::string_view part, std::string_view where, std::string_view text, std::string_view what) {
  if (part == "0") refuse(where, text, fmt::format("{} is 0; a document holds at least one token", what));
  try {
    return parse_token_count(part, where, kMaxSeq);
  } catch (const InputError&) {
  }
  // A count that reads as one but is beyond S's bound names the bound, not the grammar: "is not a
  // token count" of 2048G sent the user looking for a typo.
  if (beyond_bound(part))
    refuse(where, text,
           fmt::format("{} '{}' is more than 2^40 = {} tokens, the most one sequence holds", what, part, kMaxSeq));
  refuse(where, text,
         fmt::format("{} '{}' is not a token count of at least 1 (4096, 4k, 1.5M); {}", what, part, kForms));
}

// Document i of a generator, in [1, S].
std::int64_t generated_length(const DocumentSpec& s, std::uint64_t seed, std::uint64_t i, std::int64_t S) {
  switch (s.kind) {
    case DocumentSpec::Kind::fixed: return std::min(s.lo, S);
    case DocumentSpec::Kind::uniform: {
      const auto span = static_cast<std::uint64_t>(s.hi - s.lo) + 1;
      const auto pick = static_cast<std::uint64_t>((static_cast<u128>(draw(seed, i)) * span) >> 64);
      return std::min(s.lo + static_cast<std::int64_t>(pick), S);
    }
    case DocumentSpec::Kind::lognormal: {
      // Box–Muller on two draws: x1 in (0, 1], x2 in [0, 1).
      const double x1 = static_cast<double>((draw(seed, 2 * i) >> 11) + 1) * 0x1.0p-53;
      const double x2 = static_cast<double>(draw(seed, 2 * i + 1) >> 11) * 0x1.0p-53;
      const double z = std::sqrt(-2.0 * std::log(x1)) * std::cos(2.0 * std::numbers::pi * x2);
      const double l = std::round(static_cast<double>(s.lo) * std::exp(s.sigma * z));
      return static_cast<std::int64_t>(std::clamp(l, 1.0, static_cast<double>(S)));
    }
    case DocumentSpec::Kind::none:
    case DocumentSpec::Kind::lengths: break;
  }
  return S;
}

std::int64_t sum(const std::vector<std::int64_t>& v) { return std::accumulate(v.begin(), v.end(), std::int64_t{0}); }

}  // namespace

DocumentSpec parse_document_spec(std::string_view text, std::string_view where) {
  DocumentSpec s;
  if (text == "none") return s;
  s.text = std::string(text);
  if (text.empty()) refuse(where, text, fmt::format("is empty; {}", kForms));
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    s.kind = DocumentSpec::Kind::lengths;
    std::size_t at = 0;
    while (true) {
      const std::size_t plus = text.find('+', at);
      const std::string_view part = text.substr(at, plus == std::string_view::npos ? plus : plus - at);
      if (part.empty()) refuse(where, text, fmt::format("a length is missing between '+' signs; {}", kForms));
      s.lengths.push_back(count_of(part, where, text, fmt::format("length {}", s.lengths.size() + 1)));
      if (static_cast<std::int64_t>(s.lengths.size()) > kMaxDocuments)
        refuse(where, text, fmt::format("more than {} documents", kMaxDocuments));
      if (plus == std::string_view::npos) break;
      at = plus + 1;
    }
    return s;
  }
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const std::size_t next = text.find(':', at);
    parts.push_back(text.substr(at, next == std::string_view::npos ? next : next - at));
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  const std::string_view name = parts[0];
  auto arity = [&](std::size_t n, std::string_view form) {
    if (parts.size() != n + 1) refuse(where, text, fmt::format("the {} generator is {}", name, form));
  };
  if (name == "fixed") {
    arity(1, "fixed:L");
    s.kind = DocumentSpec::Kind::fixed;
    s.lo = count_of(parts[1], where, text, "L");
  } else if (name == "uniform") {
    arity(2, "uniform:MIN:MAX");
    s.kind = DocumentSpec::Kind::uniform;
    s.lo = count_of(parts[1], where, text, "MIN");
    s.hi = count_of(parts[2], where, text, "MAX");
    if (s.lo > s.hi) refuse(where, text, fmt::format("MIN ({}) exceeds MAX ({})", s.lo, s.hi));
  } else if (name == "lognormal") {
    arity(2, "lognormal:MEDIAN:SIGMA (SIGMA a number in [0, 8])");
    s.kind = DocumentSpec::Kind::lognormal;
    s.lo = count_of(parts[1], where, text, "MEDIAN");
    try {
      s.sigma = parse_number(parts[2], where, NumberRange{.lo = 0, .hi = kMaxLognormalSigma});
    } catch (const InputError& e) {
      // A sigma of 1e-310 is inside [0, 8]: "out of range" hid that it is too small to be a normal
      // double, so the rule says so and what to write instead.
      std::string_view digits = parts[2];
      if (written_as_number(digits) && !digits.starts_with('-') &&
          e.rule().find("smallest normal") != std::string::npos)
        refuse(where, text,
               fmt::format("SIGMA '{}' is nonzero but under 2.2e-308, the smallest normal double (it would round "
                           "to 0); SIGMA is 0 or a number from 2.2e-308 to {}",
                           parts[2], kMaxLognormalSigma));
      refuse(where, text, fmt::format("SIGMA '{}' must be a number in [0, {}]", parts[2], kMaxLognormalSigma));
    }
  } else {
    refuse(where, text, fmt::format("unknown generator '{}'; {}", name, kForms));
  }
  return s;
}

std::vector<std::int64_t> document_lengths(const DocumentSpec& spec, std::int64_t S, std::uint64_t seed) {
  if (spec.kind == DocumentSpec::Kind::none) return {};
  if (spec.kind == DocumentSpec::Kind::lengths) return spec.lengths;
  std::vector<std::int64_t> out;
  std::int64_t filled = 0;
  for (std::uint64_t i = 0; filled < S && static_cast<std::int64_t>(i) < kMaxDocuments; ++i) {
    const std::int64_t l = std::min(generated_length(spec, seed, i, S), S - filled);  // the last one cut
    out.push_back(l);
    filled += l;
  }
  return out;
}

bool pads_documents(const Config& cfg) {
  return cfg.documents.given() && cfg.documents.pad && cfg.split == Split::doc_zigzag;
}

std::vector<std::int64_t> document_extents(const Config& cfg) {
  std::vector<std::int64_t> out = cfg.documents.lengths;
  if (!pads_documents(cfg)) return out;
  const std::int64_t m = 2 * static_cast<std::int64_t>(cfg.cp);
  for (auto& l : out) l = (l + m - 1) / m * m;
  return out;
}

void set_documents(Config& cfg, const DocumentSpec& spec, bool pad) {
  cfg.documents = Documents{};
  if (spec.kind == DocumentSpec::Kind::none) return;
  cfg.documents.spec = spec.text;
  cfg.documents.lengths = document_lengths(spec, cfg.seq, cfg.seed);
  // S counts the real tokens; padding is added to it only where the lengths fill it. Lengths that
  // miss S are left unpadded, so check_documents refuses them: an S equal to the padded sum passed
  // as the same configuration under a second S (--seq 512,516).
  const bool fills = sum(cfg.documents.lengths) == cfg.seq;
  cfg.documents.pad = pad && fills;
  if (fills) cfg.seq = sum(document_extents(cfg));
}

std::int64_t real_tokens(const Config& cfg) { return cfg.documents.given() ? sum(cfg.documents.lengths) : cfg.seq; }

std::int64_t padding_tokens(const Config& cfg) {
  return cfg.documents.given() ? sum(document_extents(cfg)) - sum(cfg.documents.lengths) : 0;
}

void check_documents(const Config& cfg) {
  if (!cfg.documents.given()) return;
  const auto& d = cfg.documents;
  const std::int64_t real = sum(d.lengths);
  if (sum(document_extents(cfg)) == cfg.seq) return;
  if (static_cast<std::int64_t>(d.lengths.size()) >= kMaxDocuments && real < cfg.seq)
    refuse("documents", d.spec,
           fmt::format("the generator cannot fill S = {} within {} documents (it reached {} tokens)", cfg.seq,
                       kMaxDocuments, real));
  refuse("documents", d.spec,
         fmt::format("the lengths sum to {} tokens, not S = {}: explicit lengths must sum to every S of the sweep{}",
                     real, cfg.seq,
                     cfg.split == Split::doc_zigzag ? " (S counts real tokens; --pad-documents adds the padding to it)"
                                                    : ""));
}

namespace {

std::string joined(const std::vector<std::int64_t>& lengths) {
  std::string out;
  for (std::size_t i = 0; i < lengths.size(); ++i) out += fmt::format("{}{}", i ? "+" : "", lengths[i]);
  return out;
}

}  // namespace

// 128 bits of SHA-256: a 32-bit FNV digest collided for two 3-document lists of S = 512 found in
// half a second, and a 64-bit one would fall to a birthday search of minutes.
std::string documents_digest(const std::vector<std::int64_t>& lengths) {
  const auto h = sha256(joined(lengths));
  std::string out;
  for (std::size_t i = 0; i < kDigestHex / 2; ++i) out += fmt::format("{:02x}", h[i]);
  return out;
}

std::string documents_id(const std::vector<std::int64_t>& lengths) {
  std::string text = joined(lengths);
  if (text.size() <= kIdLengthsChars) return text;
  return fmt::format("n{}-{}", lengths.size(), documents_digest(lengths));
}

std::string documents_summary(const std::vector<std::int64_t>& lengths) {
  constexpr std::size_t kShown = 4;
  std::string out;
  for (std::size_t i = 0; i < lengths.size() && i < kShown; ++i) out += fmt::format("{}{}", i ? "+" : "", lengths[i]);
  if (lengths.size() > kShown) out += "+…";
  return out;
}

}  // namespace rb
