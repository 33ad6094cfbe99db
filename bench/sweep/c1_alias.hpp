// At c = 1 every split scheme puts the whole sequence, in order, on the one rank, and every variant
// (and every backward design) moves nothing: the configurations that differ only in split, variant
// and dkv are one computation
// (docs/design.md, "c = 1 runs once"). The sweep runs the first of them and records the others as
// aliases of it (`alias_of`, results 2.6.0): the same measurement, under each configuration's own
// id, so every reader keeps finding each id; readers that count configurations count an alias once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bench/sweep/profile.hpp"
#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "reports/results/run_record.hpp"

namespace rb::bench {

// For each configuration, the index of the earlier one it is an alias of, or nullopt: a valid c = 1
// configuration whose every field but split, variant and dkv equals that of an earlier valid c = 1
// configuration. `invalid[i]` non-empty: configuration i breaks a rule and is never an alias nor
// aliased (zigzag needs an even S where contiguous does not).
std::vector<std::optional<std::size_t>> c1_aliases(const std::vector<Config>& configs,
                                                   const std::vector<std::string>& invalid);

// The aliases a sweep with these options runs with: none under --c1-all, and never a configuration
// that --inject-fault aims at (it is measured, so that the fault happens where it was aimed).
std::vector<std::optional<std::size_t>> sweep_aliases(const std::vector<Config>& configs,
                                                      const std::vector<std::string>& invalid, const RunOptions& opts);

// The stages a sweep and its listing (`run --list`) share, before anything is written: the
// configurations in sweep order (expanded, --only applied), why each cannot run, and the aliases;
// --inject-fault is refused there where it cannot act (fault_reach.hpp).
struct SweepConfigurations {
  std::vector<Config> configs;
  std::vector<std::string> invalid;
  std::vector<std::optional<std::size_t>> alias;
};
SweepConfigurations sweep_configurations(const SweepSpec& spec, const RunOptions& opts);

// The record of `alias`: `measured`'s (its status, reason, timing, metrics, ...) under the alias's
// own config, with alias_of naming the configuration that ran.
reports::RunRecord alias_record(const reports::RunRecord& measured, const Config& alias);

}  // namespace rb::bench
