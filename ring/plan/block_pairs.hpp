// The kernel's view of a rank's plan: per step, the BlockPairs with the local rows they read, for
// every backend alike. Key rows are where the schedule puts them (ring/plan/plan.hpp, KvSchedule): at
// the source's slot of the gathered K/V, or at the lane's rows of a step buffer.
#pragma once

#include <vector>

#include "kernels/block_pair.hpp"
#include "ring/plan/plan.hpp"

namespace rb::ring {

std::vector<std::vector<kernels::BlockPair>> step_block_pairs(const Plan& plan, int rank);

}  // namespace rb::ring
