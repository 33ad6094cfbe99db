// One configuration's measurement, held across its rounds so that the sweep can interleave the
// rounds of all its configurations (round 1 of every configuration, then round 2, ...): a burst of
// a shared machine's neighbours then lands on a round or two of several configurations, where the
// spread between rounds shows it, instead of on every round of one (docs/compare.md, Noise).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/measure/metrics.hpp"
#include "bench/sweep/round_stages.hpp"
#include "bench/sweep/run_options.hpp"
#include "bench/sweep/throttle_filter.hpp"
#include "common/config.hpp"
#include "common/run_status.hpp"
#include "reports/results/run_record.hpp"
#include "ring/check/reference.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {

// The rounds a configuration plans: --rounds, at most one a repeat; with --max-noise the most the
// stopping rule may take.
int planned_rounds(const Config& cfg, const RunOptions& opts);

class ConfigurationRounds {
 public:
  // `plan` is the configuration's (the sweep's plan stage made it); `index` is its place in the
  // sweep (for fault injection).
  ConfigurationRounds(ring::Plan plan, const RunOptions& opts, int index);
  ConfigurationRounds(const ConfigurationRounds&) = delete;
  ConfigurationRounds& operator=(const ConfigurationRounds&) = delete;

  const Config& config() const { return cfg_; }
  // Rounds planned: fixed by --rounds, or with --max-noise the most it may take until the stopping
  // rule ends it, and from then on the rounds it took.
  int rounds() const { return stopped_after_ > 0 ? stopped_after_ : planned_; }
  int rounds_done() const { return done_; }
  bool finished() const { return done_ == rounds(); }
  bool adaptive() const { return opts_.stopping.adaptive(); }
  // Whether round `round` (0-based) is the one to run next: the schedule asks, the configuration
  // answers, and a configuration that stopped early is simply not due any more.
  bool due(int round) const { return !finished() && round == done_; }

  // Runs the next round on a fresh executor, which is gone again when it returns (the sweep holds
  // one configuration's buffers at a time). The first round also makes the checked pass against
  // `reference` (and the dump); the last also probes the machine once more and makes the
  // CUPTI-traced pass. The watchdog gets what is left of --timeout after the earlier rounds. With a
  // distributed transport every process of `group` calls this in step. `gate` is asked before each
  // timed pass (an A/B run's unit sample); a round it cuts throws RoundCut and keeps nothing. Throws
  // on an error of execution; a run that threw is not continued.
  void run_round(const ReferenceProvider& reference, ring::ProcessGroup* group, const SampleGate& gate = {});

  // How the configuration stands after the rounds so far (round_stages.hpp, standing_of); record()
  // writes the same.
  Standing standing() const;

  // The record of everything measured so far (docs/design.md §8): after k of n rounds, `timing` holds k
  // rounds' samples, `rounds` is k and `rounds_planned` n, and the status is standing()'s.
  // Needs at least one round done.
  reports::RunRecord record() const;

 private:
  // Keeps only the passes that can still be the median pass once every sample is in.
  void prune_candidates();
  std::size_t median_sample() const;               // index into samples_ of the median (by value, then order)
  void add_timing(reports::RunRecord& rec) const;  // timing, timeline, metrics, model, cupti (needs samples)

  Config cfg_;
  RunOptions opts_;
  int index_;
  ring::Plan plan_;
  reports::RecordPlan plan_record_;
  MetricsInputs metrics_in_;
  int planned_;
  int stopped_after_ = 0;  // --max-noise: the rounds taken when the stopping rule ended sampling
  int done_ = 0;
  double elapsed_s_ = 0;  // spent in earlier rounds, against --timeout
  bool probe_;            // CPU backend: time the machine probe around the rounds
  std::optional<CheckedPass> check_;
  std::vector<double> samples_ms_;
  std::map<std::size_t, ring::PassRecord> candidates_;  // by index into samples_ms_
  std::vector<double> fwd_ms_, bwd_ms_;                 // each kept sample's parts (PassRecord::fwd_ns, bwd_ns)
  std::vector<double> probes_ms_, probe_core_spread_;
  void probe_machine();
  std::optional<reports::RecordCupti> cupti_;  // the traced pass, after the last round (cuda)
  bool distributed_ = false;                   // run with a process group
  ExecutorFacts facts_;                        // of the latest round's executor
  int cudnn_builds_ = 0;                       // cudnn kernel: plans built by every round's executor
  double cudnn_build_ms_ = 0;                  // and the time they took
  int chunk_ = 1;                              // --max-noise: timed passes per round
  // cuda: NVML's view of the GPUs before and after (gpu_state.hpp); nullopt until read.
  std::optional<std::vector<reports::RecordGpuDevice>> gpu_start_, gpu_end_;
  std::string stopped_by_;                  // why sampling ended; empty while it goes on
  std::string trace_error_;                 // why the last --trace write failed; the timing stands
  std::optional<ThrottleFilter> throttle_;  // every timed sample's clock; made with the first executor
  std::vector<int> round_counts_;           // samples kept by each round, in order
};

}  // namespace rb::bench
