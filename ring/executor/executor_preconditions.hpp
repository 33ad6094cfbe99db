// What every executor requires of its plan and process group before it allocates anything, and
// the ranks it then hosts. The CPU and CUDA executors check the same rules, in the same order,
// with messages that name the executor.
#pragma once

#include <string_view>
#include <vector>

#include "ring/plan/plan.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::ring {

// Throws rb::Error, its message starting with `executor` ("cpu executor"), where the group does not
// have one process per rank, or where the ranks hold unequal token counts (every rank's buffers
// have one shape, ring/executor/rank_buffers.hpp). group == nullptr: every rank in this process.
void check_executor_preconditions(std::string_view executor, const Plan& plan, const ProcessGroup* group);

// The ring ranks this process hosts, in rank order: all c of them alone, else the group's rank.
std::vector<int> hosted_ring_ranks(int c, const ProcessGroup* group);

}  // namespace rb::ring
