// How tokens are assigned to ranks (docs/design.md §2). Each scheme is one small class in its own file; all
// hand out segments, so nothing downstream special-cases a scheme.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/config.hpp"
#include "common/segment.hpp"

namespace rb::ring {

class SplitScheme {
 public:
  virtual ~SplitScheme() = default;
  virtual Split kind() const = 0;
  // S must be a multiple of this for c ranks.
  virtual std::int64_t divisor(int c) const = 0;
  // Segments held by rank r of c, in local row order. Requires S % divisor(c) == 0.
  virtual SegmentList segments(std::int64_t S, int c, int r) const = 0;
  // A split that cuts each document (doc-zigzag) refuses documents it cannot cut for c ranks;
  // the others keep their meaning over the packed sequence and accept any.
  virtual void check_documents(int /*c*/) const {}
};

// The scheme of `kind`. `document_extents` (common/documents.hpp) are the tokens each packed
// document occupies, for the split that cuts each document; the others ignore them.
std::unique_ptr<SplitScheme> make_split_scheme(Split kind, std::vector<std::int64_t> document_extents = {});
// The scheme of cfg's split over cfg's documents.
std::unique_ptr<SplitScheme> make_split_scheme(const Config& cfg);

// The most within-document pieces a plan of cfg lists (docs/design.md §3c): Σ over documents of n_d²,
// n_d the segments of all ranks that reach into document d, known from the split and the document
// extents alone (no rank's segments are built); (c · segments per rank)² without documents. Rotating
// variants cut key segments into lanes, which the caller multiplies in where it counts memory.
double plan_piece_bound(const Config& cfg);
// What a plan of cfg with documents holds, counted from the split, the lengths, the variant and the
// phase before anything is built (docs/design.md §3c): the segments every rank keeps (a doc-zigzag
// rank two per document, each rank of a head exchange its group's), the within-document pieces of
// every step (plan_piece_bound per lane, kept by each member of a group, and again by a backward),
// the steps, and their bytes. A work matrix counts the same pieces without keeping them, in time of
// their number, so the model is held to the same bound.
struct PlanSize {
  double segments = 0;  // the shards' segments, c x segments per rank
  double pieces = 0;    // kept over all ranks, the backward's included
  double bytes = 0;
};
PlanSize plan_size_estimate(const Config& cfg);
// The most a plan of documents may hold: 1 GiB builds in about a second; the 4 GiB of issue 45's bound
// (2^27 pieces) took 18 s, and twice that with a backward ran out of memory (issue 51).
inline constexpr double kMaxPlanBytes = 1073741824.0;
// Throws InputError ("documents", the spec, the estimate and the bound) when cfg's documents would
// make a plan of more than kMaxPlanBytes, or padding would take S past kMaxSeq. Nothing without
// documents.
void check_piece_bound(const Config& cfg);
// The same for a work matrix (the model's), which keeps the segments but only counts the pieces: its
// segments and their indexes within kMaxPlanBytes, and at most kMaxCountedPieces pieces counted (2^27,
// seconds of counting; a striped mix of 16k documents at c = 64 counts 6.7e7 in about two).
inline constexpr double kMaxCountedPieces = 134217728.0;
void check_work_bound(const Config& cfg);

// Throws InputError naming the rule, S, c and the nearest valid S when S does not divide as the
// scheme needs (or, for doc-zigzag, the document and its nearest valid length).
void check_divisible(const SplitScheme& scheme, std::int64_t S, int c);

}  // namespace rb::ring
