// The step program (ring/program/, docs/program.md) as the program simulator's ops (model/
// op_simulator.hpp), and its ops costed with what a measured pass recorded for them: the record's
// `model` reschedules the median pass's own op times the way the program orders them, forward and
// backward, transfers and all-to-alls, so the model and the measured run describe one pass.
#pragma once

#include <vector>

#include "common/timeline.hpp"
#include "model/op_simulator.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {

// Every rank's program under `plan`, the parts its phase times only (a backward-only phase: the
// backward; what waits on the untimed forward waits on nothing), as the simulator's ops: lane,
// dependencies, peers (an exchange's sender and receiver; a gather's or reduce-scatter's K/V
// schedule members, an all-to-all's group), timeline kind, name, step and phase. Seconds are 0.
std::vector<model::RankOps> program_sim_ops(const ring::Plan& plan);

// Costs each op with the length (and bytes) of the interval `tl` recorded for it: the intervals of one rank,
// lane kind (compute, or comm: copies executing, or in flight where the rank recorded no copy),
// name, step and phase are the ops of that key in order, one each where the counts agree, else
// their union shared equally. An op nothing was recorded for costs 0. Returns how many ops found
// nothing.
int cost_from_timeline(std::vector<model::RankOps>& ranks, const Timeline& tl);

}  // namespace rb::bench
