// run_sweep: the stages of a sweep, composed.
#include "bench/sweep/sweep_pipeline.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/sweep/configuration_run.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/interrupt.hpp"
#include "bench/sweep/memory_budget.hpp"
#include "bench/sweep/round_execution.hpp"
#include "bench/sweep/round_schedule.hpp"
#include "bench/sweep/sweep_configurations.hpp"

namespace rb::bench {

SweepOutcome run_sweep(const SweepSpec& spec, const RunOptions& opts_in) {
  RunOptions opts = opts_in;
  opts.primary = is_primary();
  opts.kernel_requested = spec.kernel;
  const std::vector<Config> configs = expand_configurations(spec);
  const std::vector<std::string> invalid = validate_configurations(configs, opts);
  SweepRecorder recorder(configs, opts);  // from here on the output folder is locked
  InterruptGuard interrupts;
  const MemoryBudget budget = memory_budget(opts);
  ReferenceCache references;
  std::vector<ConfigurationRun> runs;
  runs.reserve(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) runs.emplace_back(configs[i], static_cast<int>(i), invalid[i]);
  SweepStop stop;
  RoundSchedule schedule(configs.size(), opts.interleave, [&](std::size_t i, int round) { return runs[i].due(round); });
  while (const std::optional<ScheduledRound> at = schedule.next()) {
    const auto [i, round] = *at;
    ConfigurationRun& run = runs[i];
    if (round > 0 && stop.stopped()) {
      recorder.start(i, 0, 1);
      recorder.record(i, run.keep_rounds_run(stop));
      continue;
    }
    if (round == 0) {
      if (const std::string skip = run.plan(opts, budget, stop); !skip.empty()) {
        recorder.start(i, 0, 1);
        recorder.record(i, run.skip(skip));
        continue;
      }
    }
    recorder.start(i, round, run.planned_rounds());
    const RoundResult result = run.run_round(round, references);
    stop.note(result, run.config());
    recorder.record(i, run.after_round(round, result, stop));
  }
  std::vector<RunStatus> ended;
  for (const auto& run : runs) ended.push_back(run.final_status());
  return recorder.finish(ended, stop, spec, opts);
}

}  // namespace rb::bench
