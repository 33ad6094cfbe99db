// What each step of one rank computes, decided once on the host from the plan, for every backend:
// the step's pairs, the kernel's row tiling of them, and whether the step writes the accumulators,
// merges a partial into them, or has nothing to do. The CPU and CUDA executors read this one
// decision, so a step the CPU tests see skipped is a step the GPU never launches.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/attention_tiling.hpp"
#include "kernels/block_pair.hpp"
#include "ring/plan/plan.hpp"

namespace rb::ring {

enum class StepAction {
  write,  // step 0: the kernel writes O and L straight into the accumulators (rows no key reaches:
          // O = 0, L = -inf), so no merge follows and nothing needs clearing first
  merge,  // the kernel writes the partial O and L, then the merge folds them into the accumulators
  skip,   // no pair of the step is active (in a causal contiguous ring, every block that comes from a
          // later rank): no kernel and no merge, since merging (O = 0, L = -inf) changes nothing
};
std::string_view to_string(StepAction a);

struct StepLaunch {
  int step = 0;
  StepAction action = StepAction::skip;
  std::vector<kernels::BlockPair> pairs;  // step_block_pairs(plan, rank)[step]
  kernels::tiling::AttentionWork work;    // empty when skipped
  std::int64_t sq = 0;                    // Q/O rows: the rank's tokens
  std::int64_t sk = 0;                    // K rows the pairs may index: a step buffer's, or c blocks gathered
  std::int64_t unmasked = 0;              // the plan's unmasked pairs of this step, one head
};

// One entry per step of `rank`'s plan. Throws rb::Error for a pair outside the buffers.
std::vector<StepLaunch> step_launches(const Plan& plan, int rank);

}  // namespace rb::ring
