// The kernel's view of a rank's plan: per step, the BlockPairs with the local rows they read, for
// every backend alike (key rows start at 0 in a ring buffer, at the source's slot when gathered).
#pragma once

#include <vector>

#include "kernels/block_pair.hpp"
#include "ring/plan.hpp"

namespace rb::ring {

std::vector<std::vector<kernels::BlockPair>> step_block_pairs(const Plan& plan, int rank);

}  // namespace rb::ring
