// Which passes an injected fault can act on (see injected_fault.hpp).
#include "ring/executor/injected_fault.hpp"

#include "ring/program/compile.hpp"
#include "ring/program/fault.hpp"

namespace rb::ring {

std::string injected_fault_cannot_act(InjectedFault fault, const Plan& plan) {
  if (fault != InjectedFault::wrong_kv_block) return "";
  // Asked of the ops (ring/program/fault.hpp): the fault acts on a rank whose program has a backward
  // step after the first that computes, which the rewrite points at the first step's block.
  for (int r = 0; r < static_cast<int>(plan.ranks.size()); ++r)
    if (fault_can_act(compile_program(plan, r), fault)) return "";
  // A forward-only plan has no such op, a gathered or one-step schedule one backward step a rank,
  // and documents may mask every later block.
  return "its plan has no backward step after the first that attends to keys (a phase without a backward, one "
         "K/V step, or every later block masked)";
}

}  // namespace rb::ring
