// Faults injected into a pass on purpose, and which passes each can act on. The tests of
// docs/failures.md inject them to show that a failing configuration is recorded and the sweep goes
// on, and that the correctness check catches what it must: a fault that cannot act on the pass it is
// aimed at would let the configuration pass as if the check had missed it, so the sweep refuses it
// before anything runs (bench/sweep/fault_reach.hpp). Never set in normal runs.
#pragma once

#include <string>

#include "ring/plan/plan.hpp"

namespace rb::ring {

// throw_in_pass: rank 0 throws inside the pass. hang: the last rank's first comm lane waits for a
// message that never comes (the watchdog's abort ends it).
// wrong_kv_block: every backward step of a rotating variant reads the K/V block of the backward's
// first step instead of the one its schedule brings (the defect of diffusers #14265, which reused
// iteration 0's K/V: the forward is right, the gradients are not).
enum class InjectedFault { none, throw_in_pass, hang, wrong_kv_block };

// Why `fault` cannot act on a pass of `plan` ("" where it can), asked of each rank's step program
// (ring/program/fault.hpp's fault_can_act): wrong_kv_block needs a backward step after the first
// that computes, the ops its rewrite points at the first step's block. Which executors take pass
// faults at all is the backend table's (bench/sweep/backend_table.hpp, pass_faults).
std::string injected_fault_cannot_act(InjectedFault fault, const Plan& plan);

}  // namespace rb::ring
