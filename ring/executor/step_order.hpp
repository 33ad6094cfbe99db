// The two orderings every backend keeps within one rank, whatever carries its K/V (threads and a
// transport on the CPU, streams and events on the GPU). Both follow from the double buffer of
// ring/executor/rank_buffers.hpp: step j >= 1 reads step buffer j % 2, which the transfer issued during
// step j-1 fills.
#pragma once

#include <optional>

#include "common/kv_schedule.hpp"

namespace rb::ring {

// Rotating schedules: the step whose compute must be done before the transfer issued during step
// j may write. That transfer fills step j+1's buffer, which step j-1 read last (steps >= 1 read
// the step buffers; step 0 the own block, which is never written), so transfers 0 and 1 wait for
// nothing.
constexpr std::optional<int> last_reader_of_next_buffer(int j) {
  if (j >= 2) return j - 1;
  return std::nullopt;
}

// The step whose transfer must have arrived before step j computes on c ranks: rotating, the one
// issued during step j-1 (step 0 reads the own block); gathered, the gather at step 0 (none
// alone, c = 1).
constexpr std::optional<int> transfer_read_by_step(const KvSchedule& sch, int j, int c) {
  if (sch.gathered ? j == 0 && c > 1 : j > 0) return sch.gathered ? 0 : j - 1;
  return std::nullopt;
}

}  // namespace rb::ring
