// A configuration's rounds: the checked pass, the timed passes on a fresh executor per round, the
// candidates for the median pass, and the record built from what has been measured so far.
#include "bench/sweep/configuration_rounds.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#include "bench/measure/stats.hpp"
#include "bench/sweep/backend.hpp"
#include "bench/sweep/dump.hpp"
#include "bench/sweep/gpu_state.hpp"
#include "bench/sweep/kernel_choice.hpp"
#include "bench/sweep/machine_probe.hpp"
#include "bench/sweep/result_record.hpp"
#include "bench/sweep/watchdog.hpp"
#ifdef RINGBENCH_HAVE_CUPTI
#include "bench/measure/cupti_tracer.hpp"
#include "bench/sweep/cupti_pass.hpp"
#endif
#include "common/error.hpp"
#include "common/nvtx.hpp"
#include "common/output_file.hpp"
#include "reports/exports/chrome_trace_writer.hpp"
#include "reports/exports/kineto_trace_writer.hpp"
#include "reports/results/config_json.hpp"
#include "ring/executor_cuda.hpp"

namespace rb::bench {

using nlohmann::json;

ConfigurationRounds::ConfigurationRounds(ring::Plan plan, const RunOptions& opts, int index)
    : cfg_(plan.config),
      opts_(opts),
      index_(index),
      plan_(std::move(plan)),
      plan_json_(plan_to_json(plan_)),
      rounds_(opts.stopping.adaptive() ? StoppingRule::kMaxRounds
                                       : std::clamp(opts.rounds, 1, std::max(1, cfg_.repeats))),
      probe_(cfg_.backend == Backend::cpu) {
  // Adaptive rounds all take the same number of passes, so the record's layout (round k holds
  // count / rounds samples) holds for any number of rounds.
  if (adaptive()) chunk_ = std::max(1, cfg_.repeats / std::max(1, opts.rounds));
  metrics_in_.flops = plan_.flops();
  for (const auto& rp : plan_.ranks)
    metrics_in_.flops_per_rank.push_back(4.0 * cfg_.head_dim * static_cast<double>(plan_.work(rp.rank)));
}

void ConfigurationRounds::run_round(const ReferenceProvider& reference, ring::ProcessGroup* group) {
  if (finished()) throw Error(fmt::format("{}: every round has run", cfg_.label()));
  const auto started = std::chrono::steady_clock::now();
  const int round = done_;
  const bool first = round == 0;
  // An adaptive configuration learns that a round was its last only after the round's passes; the
  // CUPTI-traced pass, which must be decided before the executor is made, then runs in its first.
  bool last = !adaptive() && round == rounds_ - 1;
  const bool faulty = opts_.fault.hits(index_, round);
  if (faulty && opts_.fault.kind == "fatal") throw FatalError("injected device-fatal error");
  ring::CpuOptions copts;
  if (faulty && opts_.fault.kind == "throw") copts.fault = ring::InjectedFault::throw_in_pass;
  if (faulty && opts_.fault.kind == "hang") copts.fault = ring::InjectedFault::hang;
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
  auto pass = [&](bool record) {
    try {
      return exec->run_pass(record);
    } catch (const std::exception& e) {
      const std::string why = watchdog.reason();
      if (!why.empty()) throw Error(why);
      throw;
    }
  };

  // The machine's own speed before each round and after the last (CPU backend: a GPU pass does not
  // depend on the host's cores), so that a neighbour's burst shows in the probe as well as in the
  // samples (bench/sweep/machine_probe.hpp, docs/compare.md).
  if (probe_ && !first) probe_machine();
    // The traced pass runs on the last round's executor; CUPTI must watch that one capture and
    // instantiate its graphs to tell which clones its node labels became (cupti_tracer.hpp).
#ifdef RINGBENCH_HAVE_CUPTI
  const bool traced = (adaptive() ? first : last) && cfg_.backend == Backend::cuda && opts_.cupti;
  std::multimap<std::uint64_t, std::uint64_t> clones;
  std::string clone_error;
  std::optional<CuptiCloneRecorder> recorder;
  if (traced && opts_.launch == ring::CudaLaunch::graph) {
    try {
      recorder.emplace();
    } catch (const Error& e) {
      clone_error = e.what();
    }
  }
#endif
  {
    auto made = make_executor(plan_, opts_, copts, group);
    std::lock_guard lk(exec_mu);
    exec = std::move(made);
  }
#ifdef RINGBENCH_HAVE_CUPTI
  try {
    if (recorder) clones = recorder->clones();
  } catch (const Error& e) {
    clone_error = e.what();
  }
  recorder.reset();
#endif
  metrics_in_.gpus = exec->gpus_at_work();
  if (const auto* ce = dynamic_cast<const ring::CudaExecutor*>(exec.get())) {
    if (!group) cuda_devices_ = ce->options().devices;
    cudnn_plans_ = ce->cudnn_plans();
  }
  // An injected throttle reads a made-up clock (nominal 1000 MHz, 500 in the rounds it hits), so
  // the filter's path runs on any backend; otherwise the executor's own clock, where it reads one.
  const bool injected_clock = opts_.fault.kind == "throttle" && opts_.fault.index == index_;
  if (!throttle_)
    throttle_.emplace(opts_.throttle, injected_clock ? std::optional<double>(1000.0) : exec->nominal_sm_clock_mhz(),
                      injected_clock ? "injected (--inject-fault throttle): 1000 MHz nominal, 500 MHz in the rounds hit"
                      : group        ? "clock64 cycles over %globaltimer ns, probed in each process's stream "
                                       "before and after its pass; the slowest process's"
                                     : "clock64 cycles over %globaltimer ns, probed in the stream before and "
                                       "after each rank's pass; the slowest device's");

  if (first && cfg_.backend == Backend::cuda) gpu_start_ = gpu_states();
  if (first) {
    (void)pass(false);
    const auto rows = ring::check_rows(plan_, opts_.full_check_limit, opts_.check_sample);
    auto out = exec->output_rows(rows.positions);
    if (faulty && opts_.fault.kind == "corrupt") out[out.size() / 2] += 1.0;
    check_ = ring::compare_to_reference(out, reference(rows), cfg_, rows);
    correctness_ = correctness_to_json(*check_);
    if (opts_.dump_dir) dump_configuration(*opts_.dump_dir, plan_, *exec, opts_.primary);
    if (probe_) probe_machine();
  }

  // Timed passes on this round's executor, after its own warm-up: a single instance can sit in a
  // fast or a slow mode for its whole life (placement, alignment; 40 against 58 ms seen for one
  // shape on this project's 2-core machine), so samples from one instance understate the
  // run-to-run spread. This is asv's answer (several processes per benchmark) within one process.
  for (int i = 0; i < cfg_.warmup; ++i) (void)pass(false);
  const int n = adaptive() ? chunk_ : cfg_.repeats / rounds_ + (round < cfg_.repeats % rounds_ ? 1 : 0);
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    nvtx::ScopedRange replay(nvtx::kRangeReplay, static_cast<std::int64_t>(throttle_->taken()));
    ring::PassRecord p = pass(true);
    const double ms = static_cast<double>(p.wall_ns) / 1e6;
    const auto mhz = injected_clock ? std::optional<double>(faulty ? 500.0 : 1000.0) : p.sm_clock_mhz;
    if (!throttle_->add(ms, mhz)) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(opts_.throttle.recovery_ms));
      continue;
    }
    ++kept;
    samples_ms_.push_back(ms);
    candidates_.emplace(samples_ms_.size() - 1, std::move(p));
  }
  round_counts_.push_back(kept);
  if (adaptive()) {
    const double spent = elapsed_s_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::string why = stop_reason(opts_.stopping, samples_ms_, round + 1, spent);
    if (group) {
      // Every process must stop after the same round: it stops when any of them would.
      std::vector<double> votes{why.empty() ? 0.0 : 1.0};
      group->sum(votes);
      if (votes[0] > 0 && why.empty()) why = "another rank's stopping rule (max-time)";
    }
    if (!why.empty()) {
      stopped_by_ = why;
      rounds_ = round + 1;
      last = true;
    }
  } else if (last) {
    stopped_by_ = fmt::format("{} repeats over {} rounds", cfg_.repeats, rounds_);
  }
  if (probe_ && last) probe_machine();
  if (last && cfg_.backend == Backend::cuda) gpu_end_ = gpu_states();
  prune_candidates();
#ifdef RINGBENCH_HAVE_CUPTI
  if (traced)
    cupti_ = cupti_traced_pass(
        *exec, [&] { return pass(false); }, clones, clone_error, metrics_in_,
        summarize(samples_ms_).median);  // 0 while every sample was dropped
#endif
  // The median pass so far: one file for Perfetto (rank 0's process), and one file per rank for HTA
  // in OUT/traces/<config id>/, each written by the process that hosts the rank.
  // A trace that cannot be written costs the trace, not the measurement: its error is recorded
  // beside the timing (run checks OUT/traces before the sweep, so this is a later failure).
  if (opts_.trace && !samples_ms_.empty()) {
    trace_error_.clear();
    try {
      const auto dir = opts_.out_dir / "traces";
      const std::string id = reports::config_id(cfg_);
      const Timeline& tl = candidates_.at(median_sample()).timeline;
      if (opts_.primary) {
        make_output_dir("--trace", dir);
        reports::write_chrome_trace(dir / (id + ".json"), {tl});
      }
      const std::string backend = fmt::format("ringbench {}/{}", to_string(cfg_.backend), to_string(cfg_.transport));
      for (int r = 0; r < cfg_.cp; ++r)
        if (group == nullptr || r == group->rank())
          reports::write_kineto_rank_trace(dir / id, tl, reports::KinetoRankInfo{r, cfg_.cp, backend});
    } catch (const Error& e) {
      trace_error_ = e.what();
    } catch (const std::filesystem::filesystem_error& e) {
      trace_error_ = e.what();
    }
  }
  ++done_;
  elapsed_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
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

json ConfigurationRounds::record() const {
  // Every sample so far may have been dropped as throttled: then there is no timing, but the
  // samples stay in sm_clock and the throttle rule below fails the record.
  if (samples_ms_.empty() && !(throttle_ && throttle_->dropped() > 0))
    throw Error(fmt::format("{}: no round has run", cfg_.label()));
  const Standing now = standing();
  json rec = result_record(cfg_, now.status, now.reason);
  if (opts_.kernel_requested != Kernel::ringbench) {
    rec["kernel_choice"] = kernel_choice_json(opts_.kernel_requested, cfg_);
    if (!cudnn_plans_.empty()) rec["kernel_choice"]["cudnn_plans"] = cudnn_plans_;
  }
  rec["plan"] = plan_json_;
  if (correctness_) rec["correctness"] = *correctness_;
  if (!samples_ms_.empty()) add_timing(rec);
  if (!trace_error_.empty()) rec["trace_error"] = trace_error_;
  // Temperature, power and throttle reasons around the configuration: a throttled GPU explains a
  // slow night (1.1.0).
  if (cfg_.backend == Backend::cuda) rec["gpu_state"] = {{"start", gpu_start_}, {"end", gpu_end_}};
  // The clock of every timed sample and which were dropped (1.2.0); absent where none is read.
  if (throttle_ && (throttle_->clocked() || cfg_.backend == Backend::cuda)) rec["sm_clock"] = throttle_->to_json();
  return rec;
}

// The check's verdict wins over the throttle's: a wrong output is the graver finding.
ConfigurationRounds::Standing ConfigurationRounds::standing() const {
  if (check_ && !check_->passed())
    return {RunStatus::failed,
            fmt::format("correctness: {} of {} checked elements over tolerance {:.3g} (max_abs_err {:.3g})",
                        check_->over_tolerance, check_->rows_checked * cfg_.heads * cfg_.head_dim, check_->tolerance,
                        check_->max_abs_err)};
  if (const std::string why = throttle_ ? throttle_->failure() : ""; !why.empty()) return {RunStatus::failed, why};
  return {};
}

// The statistics of the kept samples and the median pass's timeline, metrics, model and CUPTI pass.
void ConfigurationRounds::add_timing(json& rec) const {
  const SampleStats st = summarize(samples_ms_);
  const json stats = to_json(st);
  json timing = json::object();
  for (const auto& [k, v] : stats.items()) timing[k == "count" || k == "noise_pct" ? k : k + "_ms"] = v;
  timing["samples_ms"] = samples_ms_;
  timing["warmup"] = cfg_.warmup;
  timing["rounds"] = done_;
  timing["round_counts"] = round_counts_;
  timing["rounds_planned"] = adaptive() && stopped_by_.empty() ? json(nullptr) : json(rounds_);
  timing["stopped_by"] = stopped_by_.empty() ? json(nullptr) : json(stopped_by_);
  if (adaptive())
    timing["stopping"] = {{"max_noise_pct", opts_.stopping.max_noise_pct},
                          {"min_samples", opts_.stopping.min_samples},
                          {"max_time_s", opts_.stopping.max_time_s}};
  timing["interleaved"] = opts_.interleave;
  if (cfg_.backend == Backend::cuda) {
    timing["clock"] = distributed_ ? "CUDA events around each rank's pass, from a common barrier; the slowest rank's"
                                   : "CUDA events around the pass";
    timing["rank_mode"] = distributed_ ? "one rank per process" : std::string(ring::to_string(opts_.rank_mode));
    timing["launch"] = std::string(ring::to_string(opts_.launch));
    timing["l2"] = opts_.l2_flush ? "flushed (cold)" : "warm";
    if (cuda_devices_) timing["devices"] = *cuda_devices_;
  } else {
    timing["machine_probe_ms"] = probes_ms_;
    timing["machine_probe_core_spread"] = probe_core_spread_;
    timing["machine_probe_version"] = kMachineProbeVersion;
    timing["clock"] = distributed_
                          ? "steady_clock on each rank's process, from a common barrier; the slowest rank's pass"
                          : "steady_clock, whole pass (all ranks), wall";
  }
  rec["timing"] = timing;

  const ring::PassRecord& median_pass = candidates_.at(median_sample());
  rec["timeline"] = timeline_to_json(median_pass.timeline);
  json metrics = compute_metrics(median_pass.timeline, metrics_in_).to_json();
  metrics["timeline_pass_ms"] = static_cast<double>(median_pass.wall_ns) / 1e6;
  rec["metrics"] = std::move(metrics);
  rec["model"] = simulator_check(plan_, median_pass);
  if (!cupti_.is_null()) rec["cupti"] = cupti_;
}

}  // namespace rb::bench
