// The stages of a round, each alone.
#include "bench/sweep/round_stages.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "bench/sweep/distributed.hpp"
#include "bench/sweep/dump.hpp"
#include "common/error.hpp"
#include "common/nvtx.hpp"
#include "common/output_file.hpp"
#include "common/round_layout.hpp"
#include "reports/exports/chrome_trace_writer.hpp"
#include "reports/exports/kineto_trace_writer.hpp"
#include "reports/results/config_json.hpp"
#include "ring/cuda/executor_cuda.hpp"

namespace rb::bench {

RoundFaults round_faults(const FaultSpec& fault, int config, int round) {
  RoundFaults f;
  const bool hit = fault.hits(config, round);
  f.fatal = hit && fault.kind == FaultKind::fatal;
  f.corrupt = hit && fault.kind == FaultKind::corrupt;
  if (hit && fault.kind == FaultKind::throw_in_pass) f.pass = ring::InjectedFault::throw_in_pass;
  if (hit && fault.kind == FaultKind::hang) f.pass = ring::InjectedFault::hang;
  if (hit && fault.kind == FaultKind::wrong_block) f.pass = ring::InjectedFault::wrong_kv_block;
  // The clock is the configuration's in every round, so that the filter keeps its nominal one.
  if (fault.kind == FaultKind::throttle && fault.aims_at(config)) f.clock_mhz = hit ? 500.0 : kInjectedNominalMhz;
  if (hit && fault.kind == FaultKind::slow) f.slow_pct = fault.slow_pct;
  return f;
}

PassFn slowed(PassFn pass, double pct) {
  if (pct <= 0) return pass;
  return [pass = std::move(pass), pct](bool record) {
    ring::PassRecord p = pass(record);
    const auto extra = static_cast<std::int64_t>(static_cast<double>(p.wall_ns) * pct / 100.0);
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(extra);
    while (std::chrono::steady_clock::now() < until) {
    }
    p.wall_ns += extra;
    return p;
  };
}

ThrottleFilter make_throttle_filter(const ThrottleRule& rule, const ring::Executor& exec, bool injected_clock,
                                    bool distributed) {
  if (injected_clock)
    return ThrottleFilter(rule, kInjectedNominalMhz,
                          "injected (--inject-fault throttle): 1000 MHz nominal, 500 MHz in the rounds hit");
  return ThrottleFilter(rule, exec.nominal_sm_clock_mhz(),
                        distributed ? "clock64 cycles over %globaltimer ns, probed in each process's stream "
                                      "before and after its pass; the slowest process's"
                                    : "clock64 cycles over %globaltimer ns, probed in the stream before and "
                                      "after each rank's pass; the slowest device's");
}

ExecutorFacts executor_facts(const ring::Executor& exec, ring::ProcessGroup* group) {
  ExecutorFacts facts{exec.gpus_at_work(), std::nullopt, {}, exec.rank_devices()};
  if (const auto* cuda = dynamic_cast<const ring::CudaExecutor*>(&exec)) {
    if (!group) facts.cuda_devices = cuda->options().devices;
    facts.cudnn = cuda->cudnn_graphs();
  }
  if (group) {
    // One name a line: a device name never holds a newline (a UUID, "cpu N").
    std::string mine;
    for (const auto& d : facts.rank_devices) mine += d + "\n";
    std::vector<std::int64_t> sizes;
    const auto all = group->allgather(std::as_bytes(std::span(mine.data(), mine.size())), sizes);
    std::vector<std::vector<std::string>> views;
    std::size_t at = 0;
    for (const std::int64_t n : sizes) {
      std::vector<std::string> view;
      std::string line;
      for (std::int64_t i = 0; i < n; ++i) {
        const char ch = static_cast<char>(all[at + static_cast<std::size_t>(i)]);
        if (ch == '\n') {
          view.push_back(std::move(line));
          line.clear();
        } else {
          line.push_back(ch);
        }
      }
      at += static_cast<std::size_t>(n);
      views.push_back(std::move(view));
    }
    facts.rank_devices = merge_rank_devices(views);
  }
  return facts;
}

std::vector<std::string> merge_rank_devices(const std::vector<std::vector<std::string>>& views) {
  std::size_t ranks = 0;
  for (const auto& v : views) ranks = std::max(ranks, v.size());
  std::vector<std::string> out(ranks);
  for (const auto& v : views)
    for (std::size_t r = 0; r < v.size(); ++r)
      if (out[r].empty()) out[r] = v[r];
  return out;
}

CheckedPass checked_pass(ring::Executor& exec, const PassFn& pass, const RunOptions& opts,
                         const ReferenceProvider& reference, bool corrupt, const GradientReferenceProvider& gradients) {
  (void)pass(false);
  const ring::Plan& plan = exec.plan();
  const Config& cfg = plan.config;
  const auto rows = ring::check_rows(plan, opts.full_check_limit, opts.check_sample);
  auto out = exec.output_rows(rows.positions);
  if (corrupt) out[out.size() / 2] += 1.0;
  CheckedPass check{ring::compare_to_reference(out, reference(rows), cfg, rows), std::nullopt};
  if (plan.backward) {
    ring::GradientCorrectness g;
    g.dkv_unchecked = ring::key_gradients_unchecked(cfg, rows);
    ring::ReferenceGradients computed;
    const ring::ReferenceGradients& ref =
        gradients
            ? gradients(rows, !g.dkv_unchecked)
            : (computed = ring::reference_gradients(cfg, rows.positions,
                                                    g.dkv_unchecked ? std::span<const std::int64_t>{}
                                                                    : std::span<const std::int64_t>(rows.positions),
                                                    1));
    const auto [tol, basis] = ring::gradient_tolerance_for(cfg);
    g.dq = ring::compare_within(exec.gradient_rows(ring::GradTensor::dq, rows.positions), ref.dq, tol, basis, rows);
    if (!g.dkv_unchecked) {
      g.dk = ring::compare_within(exec.gradient_rows(ring::GradTensor::dk, rows.positions), ref.dk, tol, basis, rows);
      g.dv = ring::compare_within(exec.gradient_rows(ring::GradTensor::dv, rows.positions), ref.dv, tol, basis, rows);
    }
    check.gradients = std::move(g);
  }
  if (opts.dump_dir) dump_configuration(*opts.dump_dir, plan, exec, opts.primary);
  return check;
}

int passes_in_round(int repeats, int rounds, int round) {
  if (rounds < 1 || round < 0 || round >= rounds)
    throw Error(fmt::format("round {} of {} rounds does not exist", round + 1, rounds));
  return round_sizes(repeats, rounds)[static_cast<std::size_t>(round)];
}

TimedSamples timed_samples(const PassFn& pass, int warmup, int n, ThrottleFilter& throttle,
                           std::optional<double> clock_mhz, const SampleGate& gate) {
  // Warm-up belongs to the round's own executor: a fresh instance's first passes fault in its
  // buffers and (cuda) upload its graphs.
  for (int i = 0; i < warmup; ++i) (void)pass(false);
  TimedSamples out;
  for (int i = 0; i < n; ++i) {
    if (gate)
      if (std::string why = gate(i + 1); !why.empty()) throw RoundCut(std::move(why));
    nvtx::ScopedRange replay(nvtx::kRangeReplay, static_cast<std::int64_t>(throttle.taken()));
    ring::PassRecord p = pass(true);
    const double ms = static_cast<double>(p.wall_ns) / 1e6;
    if (!throttle.add(ms, clock_mhz ? clock_mhz : p.sm_clock_mhz)) {
      ++out.dropped;
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(throttle.rule().recovery_ms));
      continue;
    }
    out.ms.push_back(ms);
    out.passes.push_back(std::move(p));
  }
  return out;
}

Standing standing_of(const Config& cfg, const std::optional<CheckedPass>& check, const ThrottleFilter* throttle) {
  if (check && !check->output.passed())
    return {RunStatus::failed,
            fmt::format("correctness: {} of {} checked elements over tolerance {:.3g} (max_abs_err {:.3g})",
                        check->output.over_tolerance, check->output.rows_checked * cfg.heads * cfg.head_dim,
                        check->output.tolerance, check->output.max_abs_err)};
  if (check && check->gradients && !check->gradients->passed()) {
    const ring::GradientCorrectness& g = *check->gradients;
    const auto* bad = !g.dq.passed() ? &g.dq : !g.dk.passed() ? &g.dk : &g.dv;
    const char* name = bad == &g.dq ? "dQ" : bad == &g.dk ? "dK" : "dV";
    const int heads = bad == &g.dq ? cfg.heads : cfg.kv_heads;
    return {RunStatus::failed,
            fmt::format(
                "gradient correctness: {}: {} of {} checked elements over tolerance {:.3g} (max_abs_err {:.3g})", name,
                bad->over_tolerance, bad->rows_checked * heads * cfg.head_dim, bad->tolerance, bad->max_abs_err)};
  }
  if (const std::string why = throttle ? throttle->failure() : ""; !why.empty()) return {RunStatus::failed, why};
  return {};
}

std::string stop_verdict(const StoppingRule& rule, std::span<const double> samples_ms, int rounds_done, double spent_s,
                         ring::ProcessGroup* group) {
  const std::string why = stop_reason(rule, samples_ms, rounds_done, spent_s);
  if (!agree_to_stop(group, !why.empty())) return "";
  return why.empty() ? "another rank's stopping rule (max-time)" : why;
}

std::string write_traces(const RunOptions& opts, const Config& cfg, const Timeline& median_pass,
                         const ring::ProcessGroup* group) {
  try {
    const auto dir = opts.out_dir / "traces";
    const std::string id = reports::config_id(cfg);
    if (opts.primary) {
      make_output_dir("--trace", dir);
      reports::write_chrome_trace(dir / (id + ".json"), {median_pass});
    }
    const std::string backend = fmt::format("ringbench {}/{}", to_string(cfg.backend), to_string(cfg.transport));
    for (int r = 0; r < cfg.cp; ++r)
      if (group == nullptr || r == group->rank())
        reports::write_kineto_rank_trace(dir / id, median_pass, reports::KinetoRankInfo{r, cfg.cp, backend});
  } catch (const Error& e) {
    return e.what();
  } catch (const std::filesystem::filesystem_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace rb::bench
