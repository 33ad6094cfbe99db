// One pass's timeline from the intervals this process recorded, the same on every backend: with
// every rank in this process it is theirs; in a process group (the mpi and nccl transports) every
// process's intervals are moved to rank 0's clock and gathered, so each process holds the whole
// ring's (docs/distributed.md).
#pragma once

#include <cstdint>
#include <vector>

#include "common/timeline.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::ring {

// `mine` and the pass's bounds [begin_ns, end_ns] are on one clock of this process; in a group it
// must be the steady clock (ring/transport/steady_clock.hpp), which the group's clock offsets relate. The
// result is relative to the pass's begin, alone; in a group, to the earliest process's begin on
// rank 0's clock, its window ending at the latest process's end. Intervals are ordered by rank,
// each rank's in the order recorded. In a group every process calls it, in the same order as its
// other collectives.
Timeline pass_timeline(std::vector<Interval> mine, std::int64_t begin_ns, std::int64_t end_ns, ProcessGroup* group);

}  // namespace rb::ring
