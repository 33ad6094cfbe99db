// The kernel's view of a rank's plan: per step, the BlockPairs with the local rows they read, for
// every backend alike. Key rows are where the schedule puts them (ring/plan/plan.hpp, KvSchedule): at
// the source's slot of the gathered K/V, or at the lane's rows of a step buffer; the backward's
// steps read the buffers of their design (ring/program/backward_*.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/block_pair.hpp"
#include "ring/plan/plan.hpp"

namespace rb::ring {

std::vector<std::vector<kernels::BlockPair>> step_block_pairs(const Plan& plan, int rank);

// `steps` of `rank` under schedule `sch` as BlockPairs, the keys of (origin member, lane) starting at
// row key_base(origin, lane) of the buffer the step reads (the step program's compilers say where
// their layouts put them, ring/program/).
std::vector<std::vector<kernels::BlockPair>> block_pairs_on(const Plan& plan, int rank, const KvSchedule& sch,
                                                            const std::vector<StepPlan>& steps,
                                                            const std::function<std::int64_t(int, int)>& key_base);
// The BlockPairs of query rows `qs` against key rows `ks` (each list's rows in its order, from 0):
// every segment pair (§3), or under documents their within-document pieces (docs/design.md §3c).
// The float64 references build their pairs with this, by the plan's own rule.
std::vector<kernels::BlockPair> masked_block_pairs(const SegmentList& qs, const SegmentList& ks, bool causal,
                                                   const DocumentMask& documents);

}  // namespace rb::ring
