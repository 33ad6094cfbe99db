// Random segment lists for the kernels' tests (on a GPU and on the emulated device): 1 to max_segs
// segments, each starting in [0, 600], of stride 1 to 4 and 1 to max_count rows.
#pragma once

#include <cstdint>
#include <random>

#include "common/segment.hpp"

namespace rb::test {

inline SegmentList random_segments(std::mt19937_64& g, int max_segs, std::int64_t max_count) {
  std::uniform_int_distribution<std::int64_t> nseg(1, max_segs), start(0, 600), stride(1, 4), count(1, max_count);
  SegmentList s(static_cast<std::size_t>(nseg(g)));
  for (auto& x : s) x = Segment{start(g), stride(g), count(g)};
  return s;
}

}  // namespace rb::test
