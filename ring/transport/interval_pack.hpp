// Timeline intervals as bytes, so one process's can travel to the others (ProcessGroup::allgather)
// and the whole ring's timeline is the same on every process.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "common/timeline.hpp"

namespace rb::ring {

std::vector<std::byte> pack_intervals(std::span<const Interval> intervals);
// Appends the intervals in `bytes` to `out`; throws rb::Error on a truncated or malformed buffer.
void unpack_intervals(std::span<const std::byte> bytes, std::vector<Interval>& out);

}  // namespace rb::ring
