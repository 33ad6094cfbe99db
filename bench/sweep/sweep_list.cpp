// The sweep's configurations and their estimates, without running them (sweep_list.hpp).
#include "bench/sweep/sweep_list.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "bench/sweep/backend.hpp"
#include "bench/sweep/c1_alias.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/sweep_configurations.hpp"
#include "common/size_estimate.hpp"
#include "common/transport.hpp"
#include "reports/results/config_json.hpp"
#include "ring/plan/plan.hpp"
#include "ring/program/compile.hpp"
#include "ring/program/explain.hpp"

namespace rb::bench {
namespace {

std::string size_text(std::int64_t bytes) {
  if (bytes == std::numeric_limits<std::int64_t>::max()) return "> 8 EiB";
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(kUnits)) v /= 1024, ++u;
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

}  // namespace

SweepList list_sweep(const SweepSpec& spec, const RunOptions& opts_in) {
  RunOptions opts = opts_in;
  opts.primary = is_primary();
  opts.kernel_requested = spec.kernel;
  const SweepConfigurations planned = sweep_configurations(spec, opts);
  const std::vector<Config>& configs = planned.configs;
  const std::vector<std::string>& invalid = planned.invalid;
  SweepList out;
  out.budget = memory_budget(opts);
  out.budget_given = opts.memory_limit_bytes > 0;
  const std::vector<std::optional<std::size_t>>& alias = planned.alias;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    ListedConfiguration row;
    row.config = configs[i];
    row.id = reports::config_id(configs[i]);
    row.alias_of = alias[i];
    if (!alias[i]) {
      // As ConfigurationRun::plan: the rule, the ranks' state (before the plan, which grows as c²),
      // then host and device memory.
      const Config& cfg = configs[i];
      std::string skip = invalid[i];
      if (skip.empty()) skip = scale_skip_reason(cfg, opts, out.budget);
      if (skip.empty()) {
        const ring::Plan plan = ring::make_plan(cfg);
        row.host_bytes = saturated_bytes(static_cast<double>(estimated_host_bytes(plan, opts, processes(cfg))) +
                                         static_cast<double>(rank_scale(cfg, opts).bytes));
        if (const auto device = device_memory(plan, out.budget.local_devices)) row.device_bytes = device->needed_bytes;
        skip = memory_skip_reason(plan, opts, out.budget);
      }
      row.skip = agree_on_skip(cfg, std::move(skip));
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

std::string format_sweep_list(const SweepList& list) {
  std::size_t runs = 0, skipped = 0, aliases = 0;
  for (const auto& r : list.rows) (r.alias_of ? aliases : r.skip.empty() ? runs : skipped) += 1;
  std::string out = fmt::format("{} configurations: {} would run, {} skipped{}; nothing was run\n", list.rows.size(),
                                runs, skipped,
                                aliases > 0 ? fmt::format(", {} recorded as the c = 1 run they repeat", aliases) : "");
  if (list.budget.host_bytes > 0)
    out += fmt::format("host memory: {} may be used ({})\n", size_text(list.budget.host_bytes),
                       list.budget_given ? "--memory-limit" : "90% of MemAvailable");
  std::vector<std::string> head{"#", "S", "c", "split", "variant", "host mem", "device mem", "runs", "id"};
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < list.rows.size(); ++i) {
    const ListedConfiguration& r = list.rows[i];
    cells.push_back({std::to_string(i), std::to_string(r.config.seq), std::to_string(r.config.cp),
                     std::string(to_string(r.config.split)), std::string(to_string(r.config.variant)),
                     r.host_bytes ? size_text(*r.host_bytes) : "-", r.device_bytes ? size_text(*r.device_bytes) : "-",
                     r.alias_of       ? fmt::format("as #{}", *r.alias_of)
                     : r.skip.empty() ? "yes"
                                      : "skip",
                     r.id});
  }
  // The device column where some configuration has a device (cuda).
  const bool device = std::any_of(list.rows.begin(), list.rows.end(), [](const auto& r) { return r.device_bytes; });
  if (!device) {
    head.erase(head.begin() + 6);
    for (auto& row : cells) row.erase(row.begin() + 6);
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t k = 0; k < head.size(); ++k) {
    width[k] = head[k].size();
    for (const auto& row : cells) width[k] = std::max(width[k], row[k].size());
  }
  // Numbers right-aligned, words left; the id, last, unpadded.
  const auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (std::size_t k = 0; k < row.size(); ++k) {
      const bool number = k <= 2 || k == 5 || (device && k == 6);
      if (k + 1 == row.size())
        s += row[k];
      else
        s += number ? fmt::format("{:>{}}  ", row[k], width[k]) : fmt::format("{:<{}}  ", row[k], width[k]);
    }
    return s + "\n";
  };
  out += line(head);
  for (const auto& row : cells) out += line(row);
  if (skipped > 0) {
    out += "skipped:\n";
    for (std::size_t i = 0; i < list.rows.size(); ++i)
      if (!list.rows[i].alias_of && !list.rows[i].skip.empty())
        out += fmt::format("  #{} {}: {}\n", i, list.rows[i].id, list.rows[i].skip);
  }
  return out;
}

std::string format_sweep_programs(const SweepList& list) {
  std::string out;
  for (std::size_t i = 0; i < list.rows.size(); ++i) {
    const ListedConfiguration& r = list.rows[i];
    if (r.alias_of || !r.skip.empty()) continue;
    const ring::Plan plan = ring::make_plan(r.config);
    // Bytes in the run's dtype, as the cpu backend holds every buffer; the cuda backend keeps the
    // accumulators in fp32 (ring/program/program.hpp's BufInfo).
    out += fmt::format(
        "\n#{} {}: the step program of each rank (ops in reference order; `waits` names ops of other "
        "lanes; bytes in {})\n",
        i, r.id, to_string(r.config.dtype));
    for (int rank = 0; rank < r.config.cp; ++rank)
      out += ring::explain_program(ring::compile_program(plan, rank), dtype_bytes(r.config.dtype));
  }
  return out;
}

}  // namespace rb::bench
