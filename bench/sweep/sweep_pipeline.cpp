// run_sweep: the stages of a sweep, composed.
#include "bench/sweep/sweep_pipeline.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/sweep/c1_alias.hpp"
#include "bench/sweep/configuration_run.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/interrupt.hpp"
#include "bench/sweep/memory_budget.hpp"
#include "bench/sweep/round_execution.hpp"
#include "bench/sweep/round_pacing.hpp"
#include "bench/sweep/round_schedule.hpp"
#include "bench/sweep/sweep_configurations.hpp"

namespace rb::bench {

SweepOutcome run_sweep(const SweepSpec& spec, const RunOptions& opts_in) {
  RunOptions opts = opts_in;
  opts.primary = is_primary();
  opts.kernel_requested = spec.kernel;
  const SweepConfigurations planned = sweep_configurations(spec, opts);
  const std::vector<Config>& configs = planned.configs;
  const std::vector<std::string>& invalid = planned.invalid;
  SweepRecorder recorder(configs, opts);  // from here on the output folder is locked
  InterruptGuard interrupts;
  const MemoryBudget budget = memory_budget(opts);
  ReferenceCache references;
  std::vector<ConfigurationRun> runs;
  runs.reserve(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) runs.emplace_back(configs[i], static_cast<int>(i), invalid[i]);
  // c = 1's splits and variants are one computation: each alias is written when the configuration
  // it repeats closes, and is never scheduled itself.
  const std::vector<std::optional<std::size_t>>& alias = planned.alias;
  std::vector<std::vector<std::size_t>> aliases_of(configs.size());
  for (std::size_t j = 0; j < configs.size(); ++j)
    if (alias[j]) {
      aliases_of[*alias[j]].push_back(j);
      runs[j].make_alias();
      recorder.expect_alias(j);
    }
  const auto record = [&](std::size_t i, const RecordEntry& entry) {
    recorder.record(i, entry);
    if (!entry.closed) return;
    for (const std::size_t j : aliases_of[i]) {
      recorder.start(j, 0, 1);
      recorder.record(j, runs[j].alias_of(entry, configs[i]));
    }
  };
  SweepStop stop;
  // An A/B run's driver lets each turn start (round_pacing.hpp): a timed pass, a configuration's
  // round, or a pass ("round r of every configuration"); either way the builds' turns line up only in
  // the interleaved schedule, which `run` insists on.
  std::optional<RoundPacer> pacer;
  if (opts.pace_fd >= 0) pacer.emplace(opts.pace_fd, opts.pace_unit);
  // Unit sample: the driver's answer that cut a round before one of its timed passes.
  PaceAnswer cut_by;
  SampleGate gate;
  if (pacer && opts.pace_unit == PaceUnit::sample)
    gate = [&](int sample) {
      cut_by = pacer->before_sample(sample);
      return cut_by.stop;  // a signal while waiting comes with its reason too
    };
  RoundSchedule schedule(configs.size(), opts.interleave, [&](std::size_t i, int round) { return runs[i].due(round); });
  while (const std::optional<ScheduledRound> at = schedule.next()) {
    const auto [i, round] = *at;
    ConfigurationRun& run = runs[i];
    if (pacer && !stop.stopped()) {
      const PaceAnswer answer = pacer->before_round(round + 1);
      if (answer.signal != 0)
        stop.note(RoundResult{"", false, answer.signal}, run.config());
      else if (!answer.stop.empty())
        stop.reason = answer.stop;
    }
    if (round > 0 && stop.stopped()) {
      recorder.start(i, 0, 1);
      record(i, run.keep_rounds_run(stop));
      continue;
    }
    if (round == 0) {
      if (const std::string skip = run.plan(opts, budget, stop); !skip.empty()) {
        recorder.start(i, 0, 1);
        record(i, run.skip(skip));
        continue;
      }
    }
    recorder.start(i, round, run.planned_rounds());
    const RoundResult result = run.run_round(round, references, gate);
    if (result.cut && cut_by.signal != 0)
      stop.note(RoundResult{"", false, cut_by.signal}, run.config());
    else if (result.cut)
      stop.reason = cut_by.stop;
    stop.note(result, run.config());
    record(i, run.after_round(round, result, stop));
  }
  if (pacer && !stop.stopped()) pacer->done();
  if (pacer && opts.pairing) opts.pairing->first_by_round = pacer->first_by_round();
  std::vector<RunStatus> ended;  // an alias is its configuration's outcome, counted once
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (!alias[i]) ended.push_back(runs[i].final_status());
  SweepOutcome outcome = recorder.finish(ended, stop, spec, opts);
  outcome.stopped = stop.reason;
  return outcome;
}

}  // namespace rb::bench
