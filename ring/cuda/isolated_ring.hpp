// The ring's clock in the CUDA backend's isolated rank mode (docs/design.md §7): each rank's pass
// runs alone, so the ring is composed from them. Step j of rank r lasts from the end of its step
// j-1 (or its start) to the end of step j; the ring's step j lasts the longest of these, starts
// when the ring's step j-1 ends, and the pass is their sum. Pure arithmetic, tested on the CPU.
#pragma once

#include <cstdint>
#include <vector>

namespace rb::ring {

class IsolatedRing {
 public:
  // step_ends[i][j]: when step j of the i-th rank ended, from that rank's start; every rank has
  // the same number of steps.
  explicit IsolatedRing(std::vector<std::vector<std::int64_t>> step_ends);

  std::int64_t wall_ns() const { return start_.back(); }
  // When the ring's step j starts (j = steps gives the pass's end).
  std::int64_t step_start_ns(int j) const { return start_.at(static_cast<std::size_t>(j)); }
  // What to add to a time of the i-th rank's own clock that falls in its step j, to place it on
  // the ring's: the ring's step j starts where that rank's step j began.
  std::int64_t shift_ns(int i, int j) const;

 private:
  std::vector<std::vector<std::int64_t>> ends_;
  std::vector<std::int64_t> start_;  // steps + 1
};

}  // namespace rb::ring
