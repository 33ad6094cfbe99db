// The unit of work a step hands to the attention kernel: one query segment of the rank's Q against
// one key segment of the K/V block in hand, with the mask class the plan gave it.
#pragma once

#include <cstdint>

#include "common/segment.hpp"

namespace rb::kernels {

struct BlockPair {
  Segment q;            // global positions of the query rows
  std::int64_t q_row0;  // first local row of q in the Q/O buffers
  Segment k;            // global positions of the key rows
  std::int64_t k_row0;  // first local row of k in the K/V buffers
  MaskClass mask;       // from the plan; skip pairs are passed over
};

}  // namespace rb::kernels
