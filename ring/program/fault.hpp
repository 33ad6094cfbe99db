// Injected faults as rewrites of a compiled program (ring/executor/injected_fault.hpp says what each
// is for): throw_in_pass puts a failing op first on rank 0's compute lane, hang a waiting op first
// on the last rank's comm lane 1; wrong_kv_block makes every backward step after the first read the
// block the first one reads, on that step's layout (the defect of diffusers #14265), and folds its
// gradients from there. A fault that finds no op to act on leaves the program as it was.
#pragma once

#include "ring/program/compile.hpp"

namespace rb::ring {

void apply_fault(const CompileContext& cx, RankProgram& p, InjectedFault fault);

// Whether `fault` finds an op of `clean` (a program compiled without it) that its rewrite changes the
// result of: wrong_kv_block, a backward step after the first that computes; the pass faults, always.
bool fault_can_act(const RankProgram& clean, InjectedFault fault);

}  // namespace rb::ring
