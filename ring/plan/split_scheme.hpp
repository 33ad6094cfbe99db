// How tokens are assigned to ranks (docs/design.md §2). Each scheme is one small class in its own file; all
// hand out segments, so nothing downstream special-cases a scheme.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

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
};

std::unique_ptr<SplitScheme> make_split_scheme(Split kind);

// Throws InputError naming the rule, S, c and the nearest valid S when S does not divide as the
// scheme needs.
void check_divisible(const SplitScheme& scheme, std::int64_t S, int c);

}  // namespace rb::ring
