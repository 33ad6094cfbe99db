// The first two stages of a sweep (bench/sweep/sweep_pipeline.hpp): the profile's axes expanded
// into configurations, each listed once, and every configuration validated before anything is
// written, so that bad input never leaves a results file or an output folder behind.
#pragma once

#include <string>
#include <vector>

#include "bench/sweep/profile.hpp"
#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"

namespace rb::bench {

// The sweep's configurations in sweep order. An axis value given twice would give two runs one
// id, so each configuration is listed once.
std::vector<Config> expand_configurations(const SweepSpec& spec);

// Per configuration, why it cannot run ("" where it can): its backend or transport cannot run here
// (bench/sweep/backend.hpp) or it breaks a rule of the plan. Without --skip-invalid the first such
// configuration throws AgreedInputError (exit 2) instead. Every MPI process validates the same
// configurations (agreed in bench/cli/run_command.cpp), so all of them fail alike.
std::vector<std::string> validate_configurations(const std::vector<Config>& configs, const RunOptions& opts);

}  // namespace rb::bench
