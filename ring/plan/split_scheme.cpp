// Scheme factory and the divisibility check shared by all schemes.
#include "ring/plan/split_scheme.hpp"

#include <fmt/format.h>

#include "common/documents.hpp"
#include "common/error.hpp"
#include "ring/plan/split_contiguous.hpp"
#include "ring/plan/split_doc_zigzag.hpp"
#include "ring/plan/split_striped.hpp"
#include "ring/plan/split_zigzag.hpp"

namespace rb::ring {

std::unique_ptr<SplitScheme> make_split_scheme(Split kind, std::vector<std::int64_t> document_extents) {
  switch (kind) {
    case Split::contiguous: return std::make_unique<SplitContiguous>();
    case Split::zigzag: return std::make_unique<SplitZigzag>();
    case Split::striped: return std::make_unique<SplitStriped>();
    case Split::doc_zigzag: return std::make_unique<SplitDocZigzag>(std::move(document_extents));
  }
  throw Error("make_split_scheme: unknown split scheme");
}

std::unique_ptr<SplitScheme> make_split_scheme(const Config& cfg) {
  return make_split_scheme(cfg.split, document_extents(cfg));
}

double plan_piece_bound(const Config& cfg) {
  const auto c = static_cast<std::int64_t>(cfg.cp);
  if (!cfg.documents.given()) {
    const double segments = cfg.split == Split::zigzag || cfg.split == Split::doc_zigzag ? 2.0 : 1.0;
    return static_cast<double>(c) * static_cast<double>(c) * segments * segments;
  }
  const auto extents = document_extents(cfg);
  double total = 0;
  std::int64_t at = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) {
    const std::int64_t b = at, e = at + cfg.documents.lengths[d];  // the real tokens [b, e)
    at += extents[d];
    // Segments of equal chunks of n positions: those whose chunk meets [b, e).
    auto chunks = [&](std::int64_t n) { return n > 0 ? (e - 1) / n - b / n + 1 : 0; };
    std::int64_t n_d = 0;
    switch (cfg.split) {
      case Split::contiguous: n_d = chunks(cfg.seq / c); break;
      case Split::zigzag: n_d = chunks(cfg.seq / (2 * c)); break;
      case Split::striped: n_d = std::min(c, e - b); break;
      case Split::doc_zigzag: n_d = std::min(2 * c, e - b); break;  // every rank's two chunks of it
    }
    total += static_cast<double>(n_d) * static_cast<double>(n_d);
  }
  return total;
}

void check_piece_bound(const Config& cfg) {
  if (!cfg.documents.given()) return;
  const double n = plan_piece_bound(cfg);
  if (n <= kMaxDocumentPieces) return;
  throw InputError(
      "documents", cfg.documents.spec,
      fmt::format("{} documents over c = {} ranks (the {} split) would form {:.3g} within-document "
                  "pieces of segment pairs; at most {:.3g} (fewer documents, a smaller c or another split)",
                  cfg.documents.lengths.size(), cfg.cp, to_string(cfg.split), n, kMaxDocumentPieces));
}

void check_divisible(const SplitScheme& scheme, std::int64_t S, int c) {
  scheme.check_documents(c);
  const std::int64_t m = scheme.divisor(c);
  if (S % m == 0) return;
  const std::int64_t below = S / m * m, above = below + m;
  const std::int64_t nearest = (below > 0 && S - below <= above - S) ? below : above;
  const std::string rule = m == c ? "S % c == 0" : "S % (2c) == 0";
  throw InputError("seq", std::to_string(S),
                   fmt::format("the {} split needs {} (c = {}, so S must be a multiple of {}); nearest valid S is {}",
                               to_string(scheme.kind()), rule, c, m, nearest));
}

}  // namespace rb::ring
