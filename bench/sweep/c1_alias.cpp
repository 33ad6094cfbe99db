// Which c = 1 configurations are one computation, and an alias's record.
#include "bench/sweep/c1_alias.hpp"

#include <map>

#include "bench/sweep/fault_reach.hpp"
#include "bench/sweep/result_record.hpp"
#include "bench/sweep/sweep_configurations.hpp"
#include "reports/results/config_json.hpp"
#include "reports/results/record_config.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {

std::vector<std::optional<std::size_t>> c1_aliases(const std::vector<Config>& configs,
                                                   const std::vector<std::string>& invalid) {
  std::vector<std::optional<std::size_t>> out(configs.size());
  std::map<std::string, std::size_t> first;  // the id with split and variant fixed -> the one that runs
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (configs[i].cp != 1 || (i < invalid.size() && !invalid[i].empty())) continue;
    Config key = configs[i];
    key.split = Split::contiguous;
    key.variant = Variant::ring;
    key.dkv = Dkv::reverse;  // one rank's backward moves nothing either
    key.ulysses_degree = 1;  // nor does its all-to-all (U divides c = 1)
    const auto [at, fresh] = first.emplace(reports::config_id(key), i);
    if (!fresh) out[i] = at->second;
  }
  return out;
}

std::vector<std::optional<std::size_t>> sweep_aliases(const std::vector<Config>& configs,
                                                      const std::vector<std::string>& invalid, const RunOptions& opts) {
  if (!opts.c1_aliases) return std::vector<std::optional<std::size_t>>(configs.size());
  auto alias = c1_aliases(configs, invalid);
  for (std::size_t j = 0; j < configs.size(); ++j)
    if (opts.fault.kind != FaultKind::none && opts.fault.aims_at(static_cast<int>(j))) alias[j].reset();
  return alias;
}

SweepConfigurations sweep_configurations(const SweepSpec& spec, const RunOptions& opts) {
  SweepConfigurations s;
  s.configs = select_configurations(expand_configurations(spec), opts.only_ids);
  s.invalid = validate_configurations(s.configs, opts);
  check_fault_reach(opts.fault, s.configs, s.invalid, opts);
  s.alias = sweep_aliases(s.configs, s.invalid, opts);
  return s;
}

reports::RunRecord alias_record(const reports::RunRecord& measured, const Config& alias) {
  reports::RunRecord r = measured;
  r.alias_of = measured.config.id;
  r.config = reports::record_config(alias);
  // Its traces are the measured configuration's, under that one's id: nothing was written for it.
  r.trace_error.clear();
  // The plan is the alias's own (its segments name its split); at c = 1 it is cheap to make.
  if (measured.plan.present) r.plan = plan_record(ring::make_plan(alias));
  return r;
}

}  // namespace rb::bench
