// The first two stages of a sweep (bench/sweep/sweep_pipeline.hpp): the profile's axes expanded
// into configurations, each listed once, and every configuration validated before anything is
// written, so that bad input never leaves a results file or an output folder behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/sweep/profile.hpp"
#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"

namespace rb::bench {

// The product of the axes' lengths (before repeated values are merged), saturated at UINT64_MAX
// instead of wrapping.
std::uint64_t configuration_count(const SweepSpec& spec);

// The sweep's configurations in sweep order. An axis value given twice would give two runs one
// id, so each configuration is listed once. Throws AgreedInputError (exit 2) naming the axes and
// their product when it exceeds kMaxConfigurations, before any configuration is built.
std::vector<Config> expand_configurations(const SweepSpec& spec);

// `run --only`: the configurations whose ids (reports::config_id, as results.json names them) are
// in `ids`, in sweep order; all of them when `ids` is empty. An id that names no configuration of
// the sweep throws AgreedInputError (exit 2): a typo must not run an empty or partial night.
std::vector<Config> select_configurations(std::vector<Config> configs, const std::vector<std::string>& ids);

// Per configuration, why it cannot run ("" where it can): its backend or transport cannot run here
// (bench/sweep/backend.hpp) or it breaks a rule of the plan (checked without building the plan,
// which grows as c²). Without --skip-invalid the first such
// configuration throws AgreedInputError (exit 2) instead. Every MPI process validates the same
// configurations (agreed in bench/cli/run_command.cpp), so all of them fail alike.
std::vector<std::string> validate_configurations(const std::vector<Config>& configs, const RunOptions& opts);

}  // namespace rb::bench
