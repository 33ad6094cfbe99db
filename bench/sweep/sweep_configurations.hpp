// The first two stages of a sweep (bench/sweep/sweep_pipeline.hpp): the profile's axes expanded
// into configurations, each listed once, and every configuration validated before anything is
// written, so that bad input never leaves a results file or an output folder behind.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/sweep/profile.hpp"
#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "reports/results/config_json.hpp"

namespace rb::bench {

// The product of the axes' lengths (before repeated values are merged), saturated at UINT64_MAX
// instead of wrapping.
std::uint64_t configuration_count(const SweepSpec& spec);

// The sweep's configurations in sweep order. An axis value given twice would give two runs one
// id, so each configuration is listed once (listed_once). Throws AgreedInputError (exit 2) naming the
// axes and their product when it exceeds kMaxConfigurations, before any configuration is built.
std::vector<Config> expand_configurations(const SweepSpec& spec);

// Whether two configurations measure the same thing: equal in every field their id is made of
// (reports::config_id_fields()).
bool same_measurement(const Config& a, const Config& b);

// `configs` with each id once, in order: a configuration whose id an earlier one has is dropped
// where it measures the same (same_measurement), and throws AgreedInputError (exit 2, "sweep", the
// id, both configurations named) where it does not: one of them would be dropped unseen, or one
// record would hold two measurements. `id_of` is reports::config_id but in tests.
std::vector<Config> listed_once(std::vector<Config> configs,
                                const std::function<std::string(const Config&)>& id_of = reports::config_id);

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
