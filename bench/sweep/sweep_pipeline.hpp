// A sweep as a pipeline of named stages (docs/design.md §5), composed by run_sweep:
//   expand, validate   the configurations, before anything is written  (sweep_configurations.hpp)
//   schedule           the order of the rounds, asking each configuration whether a round is due
//                      (round_schedule.hpp)
//   pace               in an A/B run, before each pass of rounds, the driver's go (round_pacing.hpp)
// then, for each configuration, the one object that owns it from plan to record
// (configuration_run.hpp), at its first round
//   plan               ring::make_plan, once
//   estimate memory    host and device memory against the budget        (memory_budget.hpp)
// and at every round of it
//   run                on a fresh executor, every MPI process in step   (round_execution.hpp), in
//                      the round's stages                               (round_stages.hpp)
//   record             what the configuration hands back, to results.jsonl after every round,
//                      then results.json and the report                 (sweep_recorder.hpp)
// A configuration that fails is recorded with its reason and the sweep goes on; a device-fatal
// error or a signal stops it, keeping everything measured so far.
#pragma once

#include "bench/sweep/profile.hpp"
#include "bench/sweep/run_options.hpp"
#include "bench/sweep/sweep_recorder.hpp"

namespace rb::bench {

// Throws InputError (AgreedInputError on an MPI job) for a sweep it cannot run, before it writes
// anything.
SweepOutcome run_sweep(const SweepSpec& spec, const RunOptions& opts);

}  // namespace rb::bench
