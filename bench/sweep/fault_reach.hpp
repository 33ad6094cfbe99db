// Whether --inject-fault can act where it is aimed. An injected fault is how the tests show that
// the check fails and a failing configuration is recorded (docs/failures.md); one that cannot act
// leaves its configuration "ok" as if the check had missed it. So, with the sweep's other rules,
// before anything is written: each N must be a configuration of the sweep that runs, R a round it
// plans, a fault the check must see (corrupt, wrong-block) must act in the first round (the only one
// the check runs in), and a pass fault must be one the configuration's executor takes (the backend
// table's pass_faults) and its plan gives something to act on (ring/executor/injected_fault.hpp).
#pragma once

#include <string>
#include <vector>

#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"

namespace rb::bench {

// Throws AgreedInputError (exit 2) naming --inject-fault, its text and the rule where the fault
// cannot act on one of the configurations it aims at; `invalid[i]` non-empty: configuration i does
// not run (--skip-invalid). Builds the plans of the configurations aimed at with a pass fault only.
void check_fault_reach(const FaultSpec& fault, const std::vector<Config>& configs,
                       const std::vector<std::string>& invalid, const RunOptions& opts);

}  // namespace rb::bench
