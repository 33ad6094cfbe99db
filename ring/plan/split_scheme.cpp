// Scheme factory and the divisibility check shared by all schemes.
#include "ring/plan/split_scheme.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/documents.hpp"
#include "common/error.hpp"
#include "common/sweep_limits.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/split_contiguous.hpp"
#include "ring/plan/split_doc_zigzag.hpp"
#include "ring/plan/split_striped.hpp"
#include "ring/plan/split_zigzag.hpp"
#include "ring/plan/variant_scheme.hpp"

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

PlanSize plan_size_estimate(const Config& cfg) {
  PlanSize out;
  if (!cfg.documents.given()) return out;
  const double c = cfg.cp, docs = static_cast<double>(cfg.documents.lengths.size());
  const double per_rank = cfg.split == Split::doc_zigzag ? 2.0 * docs : cfg.split == Split::zigzag ? 2.0 : 1.0;
  const double degree = exchange_degree(cfg);
  // Whether the variant gathers and how many lanes it rotates do not depend on the sizes.
  const KvSchedule shape = make_variant_scheme(cfg.variant)->schedule(2, 2);
  const double lanes = shape.gathered ? 1.0 : static_cast<double>(shape.lanes.size());
  const double passes = times_backward(cfg.phase) ? 2.0 : 1.0;
  const double steps = shape.gathered ? 1.0 : c / std::max(degree, 1.0);
  out.segments = c * per_rank;
  out.pieces = plan_piece_bound(cfg) * lanes * degree * passes;
  // A rank keeps its shard and its attention rows (its group's); each pass's StepKeys index the
  // rows and the key pieces (a span and three ints per segment).
  const double held = out.segments * (1.0 + degree) * sizeof(Segment) + passes * out.segments * 2.0 * 20.0;
  constexpr double kHeapBlock = 48;  // a small vector's heap block
  out.bytes = held + out.pieces * sizeof(PlannedPair) + c * steps * passes * (sizeof(StepPlan) + 2 * kHeapBlock);
  return out;
}

namespace {

// Padding held to S's own bound (kMaxSeq): lengths of at most 2^40 each, at most 2^20 of them,
// padded by less than 2c each, so the sum cannot overflow.
void check_padding(const Config& cfg) {
  const std::int64_t padded = real_tokens(cfg) + padding_tokens(cfg);
  if (padded > kMaxSeq)
    throw InputError("documents", cfg.documents.spec,
                     fmt::format("padding {} documents to multiples of 2c = {} makes S = {}; at most {}",
                                 cfg.documents.lengths.size(), 2 * cfg.cp, padded, kMaxSeq));
}

}  // namespace

void check_work_bound(const Config& cfg) {
  if (!cfg.documents.given()) return;
  check_padding(cfg);
  const PlanSize n = plan_size_estimate(cfg);
  // The shards, the members' rows and the indexes of both (a span and three ints per segment).
  const double bytes = n.segments * (2.0 * sizeof(Segment) + 40.0);
  // Counted once per member (its group's ranks copy the numbers), for the forward alone.
  const double pieces = plan_piece_bound(cfg) * (cfg.variant == Variant::ring_bidirectional ? 2.0 : 1.0);
  if (bytes <= kMaxPlanBytes && pieces <= kMaxCountedPieces) return;
  throw InputError("documents", cfg.documents.spec,
                   fmt::format("{} documents over c = {} ({}, {}) make a work matrix of an estimated {:.2f} GiB of "
                               "segments and {:.3g} within-document pieces; at most {:.0f} GiB and {:.3g}",
                               cfg.documents.lengths.size(), cfg.cp, to_string(cfg.split), to_string(cfg.variant),
                               bytes / 1073741824.0, pieces, kMaxPlanBytes / 1073741824.0, kMaxCountedPieces));
}

void check_piece_bound(const Config& cfg) {
  if (!cfg.documents.given()) return;
  check_padding(cfg);
  const PlanSize n = plan_size_estimate(cfg);
  if (n.bytes <= kMaxPlanBytes) return;
  // Short: the sweep appends the configuration, and a message is cut at 340 bytes (common/error.cpp).
  throw InputError("documents", cfg.documents.spec,
                   fmt::format("{} documents over c = {} ({}, {}{}) make a plan of an estimated {:.2f} GiB ({:.3g} "
                               "within-document pieces, {:.3g} segments); at most {:.0f} GiB",
                               cfg.documents.lengths.size(), cfg.cp, to_string(cfg.split), to_string(cfg.variant),
                               times_backward(cfg.phase) ? ", with a backward" : "", n.bytes / 1073741824.0, n.pieces,
                               n.segments, kMaxPlanBytes / 1073741824.0));
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
