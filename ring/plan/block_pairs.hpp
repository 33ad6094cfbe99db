// The kernel's view of a rank's plan: per step, the BlockPairs with the local rows they read, for
// every backend alike. Key rows are where the schedule puts them (ring/plan/plan.hpp, KvSchedule): at
// the source's slot of the gathered K/V, or at the lane's rows of a step buffer; the backward's
// steps read the buffers of their design (ring/executor/backward_buffers.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/block_pair.hpp"
#include "ring/plan/plan.hpp"

namespace rb::ring {

std::vector<std::vector<kernels::BlockPair>> step_block_pairs(const Plan& plan, int rank);

// The backward's steps of `rank` (plan.backward required): the same pairs on the rows its buffers
// hold them at: a reversed ring's fused buffers put lane l's K rows at 4·l·lane_rows, a follow
// design reads the forward's step buffers, a gathered one the gathered K/V.
// With forward_layout, every step's pairs on the forward's layout instead (a reversed ring's step 0
// reads the forward's last step buffer; the wrong-block fault reads the own block).
std::vector<std::vector<kernels::BlockPair>> backward_block_pairs(const Plan& plan, int rank,
                                                                  bool forward_layout = false);

// Key rows a backward step's pairs may index in the buffer it reads.
std::int64_t backward_key_rows(const Plan& plan);

// The BlockPairs of query rows `qs` against key rows `ks` (each list's rows in its order, from 0):
// every segment pair (§3), or under documents their within-document pieces (docs/design.md §3c).
// The float64 references build their pairs with this, by the plan's own rule.
std::vector<kernels::BlockPair> masked_block_pairs(const SegmentList& qs, const SegmentList& ks, bool causal,
                                                   const DocumentMask& documents);

}  // namespace rb::ring
