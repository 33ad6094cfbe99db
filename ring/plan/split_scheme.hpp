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
// The most pieces a plan or a work matrix may form: 2^27 are 4 GiB of plan and seconds of counting.
inline constexpr double kMaxDocumentPieces = 134217728.0;
// Throws InputError ("documents", the spec, the rule) when cfg's documents would form more than
// kMaxDocumentPieces pieces. Nothing without documents.
void check_piece_bound(const Config& cfg);

// Throws InputError naming the rule, S, c and the nearest valid S when S does not divide as the
// scheme needs (or, for doc-zigzag, the document and its nearest valid length).
void check_divisible(const SplitScheme& scheme, std::int64_t S, int c);

}  // namespace rb::ring
