// `ringbench run --list` (alias --dry-run): the configurations a sweep would run, each with the
// memory the sweep's own estimate gives it (memory_budget.hpp), and those it would skip with the
// reason it would record, computed by the same stages run_sweep uses before it measures (expand,
// select, validate, the c = 1 aliases, the rank-state and memory checks), without running or
// writing anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/sweep/memory_budget.hpp"
#include "bench/sweep/profile.hpp"
#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"

namespace rb::bench {

struct ListedConfiguration {
  Config config;
  std::string id;                            // reports::config_id, as results.json and --only name it
  std::optional<std::int64_t> host_bytes;    // the estimate held against the host budget; unset: not planned
  std::optional<std::int64_t> device_bytes;  // cuda: on the fullest device
  std::string skip;                          // why it would be skipped; "" where it would run
  std::optional<std::size_t> alias_of;       // c = 1: recorded as the same computation as this row
};

struct SweepList {
  std::vector<ListedConfiguration> rows;
  MemoryBudget budget;
  bool budget_given = false;  // --memory-limit, else 90% of MemAvailable
};

// Throws as run_sweep does for a sweep it cannot run (exit 2), before anything is planned. On an MPI
// job a collective, as run_sweep's first stages are: every process calls it.
SweepList list_sweep(const SweepSpec& spec, const RunOptions& opts);

// One aligned row a configuration (#, S, c, split, variant, memory, what happens, id), then the
// reasons of the skipped ones.
std::string format_sweep_list(const SweepList& list);

// `--list --explain`: every rank's step program (ring/program/explain.hpp) of each configuration that
// would run.
std::string format_sweep_programs(const SweepList& list);

}  // namespace rb::bench
