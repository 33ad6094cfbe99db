// Which passes an injected fault can act on (see injected_fault.hpp).
#include "ring/executor/injected_fault.hpp"

#include <algorithm>

namespace rb::ring {

namespace {

// A step after the first, on any rank, that attends to keys: where wrong_kv_block reads the first
// step's block instead of its own.
bool backward_reads_a_later_block(const Plan& plan) {
  return std::any_of(plan.ranks.begin(), plan.ranks.end(), [](const RankPlan& rp) {
    const auto& steps = rp.backward.steps;
    return steps.size() > 1 &&
           std::any_of(steps.begin() + 1, steps.end(), [](const StepPlan& st) { return st.unmasked > 0; });
  });
}

}  // namespace

std::string injected_fault_cannot_act(InjectedFault fault, const Plan& plan) {
  if (fault == InjectedFault::none) return "";
  if (plan.config.backend != Backend::cpu)
    return "only the cpu executor takes injected pass faults (the cuda executors are never given one)";
  if (fault != InjectedFault::wrong_kv_block) return "";
  if (!plan.backward) return "its phase has no backward";
  if (plan.backward->kv.gathered) return "its backward reads the gathered K/V, not a rotated block";
  if (!backward_reads_a_later_block(plan))
    return "its backward has no step after the first that attends to keys (one K/V step, or every later "
           "block masked)";
  return "";
}

}  // namespace rb::ring
