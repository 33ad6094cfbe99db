// A configuration's rounds: the checked pass, the timed passes on a fresh executor per round, the
// candidates for the median pass, and the record built from what has been measured so far.
#include "bench/sweep/configuration_rounds.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <numeric>

#include <fmt/format.h>

#include "bench/measure/stats.hpp"
#include "bench/sweep/backend.hpp"
#include "bench/sweep/gpu_state.hpp"
#include "bench/sweep/kernel_choice.hpp"
#include "bench/sweep/machine_probe.hpp"
#include "bench/sweep/result_record.hpp"
#include "bench/sweep/traced_pass.hpp"
#include "bench/sweep/watchdog.hpp"
#include "common/error.hpp"

namespace rb::bench {

int planned_rounds(const Config& cfg, const RunOptions& opts) {
  return opts.stopping.adaptive() ? StoppingRule::kMaxRounds : std::clamp(opts.rounds, 1, std::max(1, cfg.repeats));
}

ConfigurationRounds::ConfigurationRounds(ring::Plan plan, const RunOptions& opts, int index)
    : cfg_(plan.config),
      opts_(opts),
      index_(index),
      plan_(std::move(plan)),
      plan_record_(plan_record(plan_)),
      planned_(planned_rounds(cfg_, opts)),
      probe_(cfg_.backend == Backend::cpu) {
  // Adaptive rounds all take the same number of passes, so the record's layout (round k holds
  // count / rounds samples) holds for any number of rounds.
  if (adaptive()) chunk_ = std::max(1, cfg_.repeats / std::max(1, opts.rounds));
  // The FLOPs of what a pass times (docs/design.md §3a): the forward's, the backward's 2.5 times them, or both.
  const double factor = (times_forward(cfg_.phase) ? 1.0 : 0.0) +
                        (times_backward(cfg_.phase) ? ring::Plan::kBackwardFlopsFactor : 0.0);
  metrics_in_.flops = factor * plan_.flops();
  for (const auto& rp : plan_.ranks)
    metrics_in_.flops_per_rank.push_back(factor * 4.0 * cfg_.head_dim * static_cast<double>(plan_.work(rp.rank)));
}

void ConfigurationRounds::run_round(const ReferenceProvider& reference, ring::ProcessGroup* group,
                                    const SampleGate& gate) {
  if (finished()) throw Error(fmt::format("{}: every round has run", cfg_.label()));
  const auto started = std::chrono::steady_clock::now();
  const int round = done_;
  const bool first = round == 0;
  // An adaptive configuration learns that a round was its last only after the round's passes; the
  // CUPTI-traced pass, which must be decided before the executor is made, then runs in its first.
  bool last = !adaptive() && round == planned_ - 1;
  const RoundFaults faults = round_faults(opts_.fault, index_, round);
  if (faults.fatal) throw FatalError("injected device-fatal error");
  distributed_ = group != nullptr;

  std::unique_ptr<ring::Executor> exec;
  std::mutex exec_mu;  // the watchdog may fire while the executor is being made
  Watchdog watchdog(
      opts_.timeout_s,
      [&] {
        std::lock_guard lk(exec_mu);
        if (exec) exec->abort();
        if (group) group->abort();  // also ends waits outside the executor (a collective, a peer)
      },
      elapsed_s_);
  // An abort surfaces as an executor error; name the watchdog's reason instead.
  const PassFn pass = slowed(
      [&](bool record) {
        try {
          return exec->run_pass(record);
        } catch (const std::exception& e) {
          const std::string why = watchdog.reason();
          if (!why.empty()) throw Error(why);
          throw;
        }
      },
      faults.slow_pct);

  // The machine's own speed before each round and after the last (CPU backend: a GPU pass does not
  // depend on the host's cores), so that a neighbour's burst shows in the probe as well as in the
  // samples (bench/sweep/machine_probe.hpp, docs/compare.md).
  if (probe_ && !first) probe_machine();
  TracedPass traced((adaptive() ? first : last) && cfg_.backend == Backend::cuda && opts_.cupti, opts_.launch);
  {
    ring::CpuOptions copts;
    copts.fault = faults.pass;
    copts.binding = opts_.cpu_binding;
    auto made = make_executor(plan_, opts_, copts, group);
    std::lock_guard lk(exec_mu);
    exec = std::move(made);
  }
  traced.executor_made();
  facts_ = executor_facts(*exec, group);
  cudnn_builds_ += facts_.cudnn.builds;
  cudnn_build_ms_ += facts_.cudnn.build_ms;
  metrics_in_.gpus = facts_.gpus_at_work;
  if (!throttle_)
    throttle_.emplace(make_throttle_filter(opts_.throttle, *exec, faults.clock_mhz.has_value(), distributed_));

  if (first && cfg_.backend == Backend::cuda) gpu_start_ = gpu_states();
  if (first) {
    check_ = checked_pass(*exec, pass, opts_, reference, faults.corrupt);
    if (probe_) probe_machine();
  }

  // A fresh executor per round: one instance can keep a fast or a slow mode for its whole life, so
  // one instance's samples understate the spread between runs (docs/performance.md, Rounds).
  const int n = adaptive() ? chunk_ : passes_in_round(cfg_.repeats, planned_, round);
  // The wait for the A/B driver's go (unit sample) is the partner's pass, not this configuration's
  // time: it counts neither against --timeout nor in the time spent.
  std::chrono::steady_clock::duration waited{};
  const SampleGate timed_gate = !gate ? SampleGate{} : SampleGate([&](int sample) {
    watchdog.pause();
    const auto asked = std::chrono::steady_clock::now();
    std::string why = gate(sample);
    waited += std::chrono::steady_clock::now() - asked;
    watchdog.resume();
    return why;
  });
  TimedSamples timed = timed_samples(pass, cfg_.warmup, n, *throttle_, faults.clock_mhz, timed_gate);
  for (auto& p : timed.passes) {
    samples_ms_.push_back(static_cast<double>(p.wall_ns) / 1e6);
    fwd_ms_.push_back(static_cast<double>(p.fwd_ns) / 1e6);
    bwd_ms_.push_back(static_cast<double>(p.bwd_ns) / 1e6);
    candidates_.emplace(samples_ms_.size() - 1, std::move(p));
  }
  round_counts_.push_back(static_cast<int>(timed.ms.size()));
  if (adaptive()) {
    const double spent = elapsed_s_ +
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - started - waited).count();
    if (std::string why = stop_verdict(opts_.stopping, samples_ms_, round + 1, spent, group); !why.empty()) {
      stopped_by_ = std::move(why);
      stopped_after_ = round + 1;
      last = true;
    }
  } else if (last) {
    stopped_by_ = fmt::format("{} repeats over {} rounds", cfg_.repeats, planned_);
  }
  if (probe_ && last) probe_machine();
  if (last && cfg_.backend == Backend::cuda) gpu_end_ = gpu_states();
  prune_candidates();
  if (traced.traced())
    cupti_ = traced.run(
        *exec, [&] { return pass(false); }, metrics_in_,
        summarize(samples_ms_).median);  // 0 while every sample was dropped
  if (opts_.trace && !samples_ms_.empty())
    trace_error_ = write_traces(opts_, cfg_, candidates_.at(median_sample()).timeline, group);
  ++done_;
  elapsed_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started - waited).count();
}

void ConfigurationRounds::probe_machine() {
  const MachineProbe p = machine_probe();
  probes_ms_.push_back(p.ms);
  probe_core_spread_.push_back(p.core_spread);
}

std::size_t ConfigurationRounds::median_sample() const {
  std::vector<std::size_t> order(samples_ms_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return samples_ms_[a] < samples_ms_[b]; });
  return order[order.size() / 2];
}

// With N samples planned and K known, the final median has rank m = N/2 among all N. A known
// sample of rank j among the known ends with a rank in [j, j + N - K], whatever the missing ones
// are; it can be the median only if j <= m <= j + N - K. The running median (rank K/2) always
// satisfies that, so record() finds it after every round.
void ConfigurationRounds::prune_candidates() {
  if (adaptive() && !finished() && stopped_by_.empty()) return;  // the final count is not known yet
  // Dropped samples never come back, so they leave the planned count.
  const int dropped = throttle_ ? throttle_->dropped() : 0;
  const std::size_t planned = adaptive() ? samples_ms_.size()
                                         : static_cast<std::size_t>(std::max(cfg_.repeats - dropped, 1));
  const std::size_t known = samples_ms_.size();
  const std::size_t missing = planned > known ? planned - known : 0;
  const std::size_t m = std::max(planned, known) / 2;
  std::vector<std::size_t> order(known);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return samples_ms_[a] < samples_ms_[b]; });
  for (std::size_t j = 0; j < known; ++j)
    if (j + missing < m || j > m) candidates_.erase(order[j]);
}

reports::RunRecord ConfigurationRounds::record() const {
  // Every sample so far may have been dropped as throttled: then there is no timing, but the
  // samples stay in sm_clock and the throttle rule below fails the record.
  if (samples_ms_.empty() && !(throttle_ && throttle_->dropped() > 0))
    throw Error(fmt::format("{}: no round has run", cfg_.label()));
  const Standing now = standing();
  reports::RunRecord rec = result_record(cfg_, now.status, now.reason);
  if (opts_.kernel_requested != Kernel::ringbench) {
    rec.kernel_choice = kernel_choice_record(opts_.kernel_requested, cfg_);
    add_cudnn_graphs(*rec.kernel_choice, facts_.cudnn, cudnn_builds_, cudnn_build_ms_);
  }
  rec.plan = plan_record_;
  if (check_) rec.correctness = correctness_record(check_->output, check_->gradients);
  if (!samples_ms_.empty()) add_timing(rec);
  rec.trace_error = trace_error_;
  rec.placement = placement_record(facts_.rank_devices);
  // Temperature, power and throttle reasons around the configuration: a throttled GPU explains a
  // slow night (1.1.0).
  if (cfg_.backend == Backend::cuda) rec.gpu_state = reports::RecordGpuState{.start = gpu_start_, .end = gpu_end_};
  // The clock of every timed sample and which were dropped (1.2.0); absent where none is read.
  if (throttle_ && (throttle_->clocked() || cfg_.backend == Backend::cuda)) rec.sm_clock = throttle_->record();
  return rec;
}

Standing ConfigurationRounds::standing() const { return standing_of(cfg_, check_, throttle_ ? &*throttle_ : nullptr); }

// The statistics of the kept samples and the median pass's timeline, metrics, model and CUPTI pass.
void ConfigurationRounds::add_timing(reports::RunRecord& rec) const {
  const SampleStats st = summarize(samples_ms_);
  reports::RecordTiming& t = rec.timing;
  t.present = true;
  t.count = st.count;
  t.min_ms = st.min;
  t.median_ms = st.median;
  t.mean_ms = st.mean;
  t.p90_ms = st.p90;
  t.p99_ms = st.p99;
  t.max_ms = st.max;
  t.stdev_ms = st.stdev;
  t.noise_pct = st.noise_pct;
  t.samples_ms = samples_ms_;
  t.warmup = cfg_.warmup;
  t.rounds = done_;
  t.round_counts.assign(round_counts_.begin(), round_counts_.end());
  if (!adaptive() || !stopped_by_.empty()) t.rounds_planned = rounds();
  if (!stopped_by_.empty()) t.stopped_by = stopped_by_;
  if (adaptive())
    t.stopping = reports::RecordStopping{.max_noise_pct = opts_.stopping.max_noise_pct,
                                         .min_samples = opts_.stopping.min_samples,
                                         .max_time_s = opts_.stopping.max_time_s};
  t.interleaved = opts_.interleave;
  if (cfg_.backend == Backend::cuda) {
    t.clock = distributed_ ? "CUDA events around each rank's pass, from a common barrier; the slowest rank's"
                           : "CUDA events around the pass";
    t.rank_mode = distributed_ ? "one rank per process" : std::string(ring::to_string(opts_.rank_mode));
    t.launch = std::string(ring::to_string(opts_.launch));
    t.l2 = opts_.l2_flush ? "flushed (cold)" : "warm";
    t.devices = facts_.cuda_devices;
  } else {
    t.machine_probe_ms = probes_ms_;
    t.machine_probe_core_spread = probe_core_spread_;
    t.machine_probe_version = kMachineProbeVersion;
    t.clock = distributed_ ? "steady_clock on each rank's process, from a common barrier; the slowest rank's pass"
                           : "steady_clock, whole pass (all ranks), wall";
    t.cpu_binding = std::string(ring::to_string(opts_.cpu_binding));
  }

  const ring::PassRecord& median_pass = candidates_.at(median_sample());
  rec.timeline = timeline_record(median_pass.timeline);
  rec.metrics = compute_metrics(median_pass.timeline, metrics_in_).record();
  rec.metrics.timeline_pass_ms = static_cast<double>(median_pass.wall_ns) / 1e6;
  if (times_backward(cfg_.phase)) {
    // Each part of the pass on its own (docs/design.md §3a): its samples and the median pass's
    // intervals of that part, over the part's window, against the part's FLOPs.
    if (times_forward(cfg_.phase)) {
      t.fwd_samples_ms = fwd_ms_;
      t.fwd_median_ms = summarize(fwd_ms_).median;
    }
    t.bwd_samples_ms = bwd_ms_;
    t.bwd_median_ms = summarize(bwd_ms_).median;
    const double f = plan_.flops();
    // A part's window, which its rates divide by: the forward's from the pass start to its end
    // (fwd_ns); the backward's the span of its own intervals, since a rank may begin its backward
    // while another still runs its forward.
    auto part = [&](int phase, std::int64_t begin, std::int64_t end, double flops) {
      Timeline tl;
      tl.window_begin_ns = begin;
      tl.window_end_ns = end;
      for (const auto& iv : median_pass.timeline.intervals)
        if (iv.phase == phase) tl.intervals.push_back(iv);
      MetricsInputs in = metrics_in_;
      in.flops = flops;
      for (auto& fr : in.flops_per_rank)
        fr = flops * fr / std::max(metrics_in_.flops, 1.0);  // each rank's share, as in the whole pass
      return compute_metrics(tl, in).record();
    };
    const std::int64_t begin = median_pass.timeline.window_begin_ns;
    if (times_forward(cfg_.phase)) rec.metrics_fwd = part(0, begin, begin + median_pass.fwd_ns, f);
    rec.metrics_bwd = part(1, 0, 0, ring::Plan::kBackwardFlopsFactor * f);
  }
  // The program simulator replays every op the timed parts ran: a backward-only pass's too.
  rec.model = simulator_check(plan_, median_pass);
  rec.cupti = cupti_;
}

}  // namespace rb::bench
