// Which passes an injected fault can act on (see injected_fault.hpp).
#include "ring/executor/injected_fault.hpp"

#include <algorithm>

namespace rb::ring {

namespace {

// A backward step after the first, on any rank, that attends to keys: where wrong_kv_block reads
// the first step's block instead of its own.
bool backward_reads_a_later_block(const Plan& plan) {
  return std::any_of(plan.ranks.begin(), plan.ranks.end(), [](const RankPlan& rp) {
    const auto& steps = rp.backward.steps;
    return steps.size() > 1 &&
           std::any_of(steps.begin() + 1, steps.end(), [](const StepPlan& st) { return st.unmasked > 0; });
  });
}

}  // namespace

std::string injected_fault_cannot_act(InjectedFault fault, const Plan& plan) {
  if (fault != InjectedFault::wrong_kv_block || backward_reads_a_later_block(plan)) return "";
  // Read from the plan's backward steps alone: a forward-only plan has none, a gathered or one-step
  // schedule one a rank, and documents may mask every later block.
  return "its plan has no backward step after the first that attends to keys (a phase without a backward, one "
         "K/V step, or every later block masked)";
}

}  // namespace rb::ring
