// run_sweep: the stages of a sweep, composed.
#include "bench/sweep/sweep_pipeline.hpp"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/sweep/configuration_rounds.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/interrupt.hpp"
#include "bench/sweep/memory_budget.hpp"
#include "bench/sweep/round_execution.hpp"
#include "bench/sweep/round_schedule.hpp"
#include "bench/sweep/sweep_configurations.hpp"
#include "ring/plan.hpp"

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
  std::vector<ConfigurationSlot> slots(configs.size());
  SweepStop stop;
  RoundSchedule schedule(configs, opts);
  while (const std::optional<ScheduledRound> at = schedule.next()) {
    const auto [i, round] = *at;
    ConfigurationSlot& slot = slots[i];
    const Config& cfg = configs[i];
    if (!slot.due(round)) continue;
    if (round > 0 && stop.stopped()) {
      recorder.keep_rounds_run(slot, i, stop);
      continue;
    }
    if (round == 0) {
      std::string skip = stop.stopped() ? "not run: " + stop.reason : invalid[i];
      std::optional<ring::Plan> plan;
      if (skip.empty()) skip = scale_skip_reason(cfg, opts, budget);  // before the plan, which grows as c²
      if (skip.empty()) {
        plan = ring::make_plan(cfg);
        skip = memory_skip_reason(*plan, opts, budget);
      }
      skip = agree_on_skip(cfg, std::move(skip));
      if (!skip.empty()) {
        recorder.skip(slot, i, skip);
        continue;
      }
      slot.rounds = std::make_unique<ConfigurationRounds>(std::move(*plan), opts, static_cast<int>(i));
    }
    recorder.start(i, round, slot.rounds->adaptive() ? 0 : slot.rounds->rounds());
    const RoundResult result = execute_round(*slot.rounds, round, references);
    stop.note(result, cfg);
    recorder.record_round(slot, i, round, result, stop);
    // Only a round that ran can leave its configuration wanting another, so the `continue`s above
    // never need to ask.
    schedule.ran(*at, slot.wants_round_after(round));
  }
  return recorder.finish(slots, stop, spec, opts);
}

}  // namespace rb::bench
