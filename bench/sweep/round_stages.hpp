// The stages of one round of one configuration, each a function from typed inputs to a typed
// result (NVBench's measure_cold splits its job the same way): the faults the round carries, the
// prepare stage (the checked pass and the dump), the timed samples, the verdicts (the standing of
// the check and the throttle filter, and the adaptive stopping rule) and the median pass's trace
// files. ConfigurationRounds::run_round composes them around one executor; each is tested alone
// (tests/bench/sweep/test_round_stages.cpp). The CUPTI-traced pass is its own stage (traced_pass.hpp).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/sweep/run_options.hpp"
#include "bench/sweep/stopping_rule.hpp"
#include "bench/sweep/throttle_filter.hpp"
#include "common/config.hpp"
#include "common/error.hpp"
#include "common/run_status.hpp"
#include "ring/check/reference.hpp"
#include "ring/check/reference_backward.hpp"
#include "ring/cuda/cudnn_graph_cache.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/plan.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::bench {

// The float64 reference rows a round's check compares against (bench/sweep/round_execution.hpp
// keeps them while consecutive configurations share them).
using ReferenceProvider = std::function<const std::vector<double>&(const ring::CheckRows&)>;
// The float64 gradients a backward's check compares against: dQ on the rows, and dK/dV on them too
// where `with_keys` (ring/check/reference_backward.hpp).
using GradientReferenceProvider =
    std::function<const ring::ReferenceGradients&(const ring::CheckRows&, bool with_keys)>;
// One pass of the round's executor, recorded (timeline) or not; the watchdog's reason replaces an
// abort's error.
using PassFn = std::function<ring::PassRecord(bool record)>;

// What --inject-fault does to one round of one configuration.
struct RoundFaults {
  bool fatal = false;    // a device-fatal error before anything runs
  bool corrupt = false;  // the checked output is perturbed, so the check fails
  ring::InjectedFault pass = ring::InjectedFault::none;
  // throttle: every sample of the configuration reads this made-up clock (nominal 1000 MHz, 500 in
  // the rounds hit), so the throttle filter's path runs on any backend.
  std::optional<double> clock_mhz;
  double slow_pct = 0;  // slow: every pass of the round takes this much longer
};
RoundFaults round_faults(const FaultSpec& fault, int config, int round);
inline constexpr double kInjectedNominalMhz = 1000;

// `pass`, made `pct` percent slower in real time: after each pass the host spins for pct% of its
// wall time, which the pass's record then includes, as slower code would take the time (a spin,
// not a sleep, so that it competes for the cores as real work does). The timeline is left as
// measured. `pass` itself where pct is 0.
PassFn slowed(PassFn pass, double pct);

// The throttle filter of a configuration, made with its first executor: against the injected clock
// where --inject-fault throttle aims at it, else the executor's own nominal clock, if it reads one.
ThrottleFilter make_throttle_filter(const ThrottleRule& rule, const ring::Executor& exec, bool injected_clock,
                                    bool distributed);

// What the record keeps of the executor besides its passes.
struct ExecutorFacts {
  int gpus_at_work = 1;
  std::optional<int> cuda_devices;        // cuda, local transport: GPUs the virtual ranks were dealt over
  ring::CudnnGraphsUsed cudnn;            // cudnn kernel: each graph shape's plan, and the builds
  std::vector<std::string> rank_devices;  // by ring rank: what ran it (Executor::rank_devices)
};
// Collective in a group: each process knows only its own ranks' devices, so they are gathered.
ExecutorFacts executor_facts(const ring::Executor& exec, ring::ProcessGroup* group);

// Every process's view of rank_devices merged: rank r's entry from whichever process named it.
std::vector<std::string> merge_rank_devices(const std::vector<std::vector<std::string>>& views);

// What the first round's check found: the output and, where the phase has a backward, the gradients.
struct CheckedPass {
  ring::Correctness output;
  std::optional<ring::GradientCorrectness> gradients;
  bool passed() const { return output.passed() && (!gradients || gradients->passed()); }
};

// Prepare (the first round): one untimed pass, its output (and gradients, with a backward) checked
// against the float64 reference on the rows check_rows picks (docs/design.md §7 step 1), and the dump
// when --dump asks for it. Without a gradient provider the gradient reference is computed here.
CheckedPass checked_pass(ring::Executor& exec, const PassFn& pass, const RunOptions& opts,
                         const ReferenceProvider& reference, bool corrupt,
                         const GradientReferenceProvider& gradients = {});

// The timed passes of fixed round `round` of `rounds`: the repeats spread evenly, the first
// rounds taking the remainder.
int passes_in_round(int repeats, int rounds, int round);

// The kept samples of one round, in order, with their passes (the candidates for the median pass).
struct TimedSamples {
  std::vector<double> ms;
  std::vector<ring::PassRecord> passes;
  int dropped = 0;  // taken, but under the throttle threshold
};
// Asked before each timed pass (1-based) whether to take it: "" to take it, else why the sweep
// stops there. An A/B run's unit `sample` waits on it for the driver's turn (round_pacing.hpp).
using SampleGate = std::function<std::string(int sample)>;
// A round its gate stopped before one of its timed passes. Its samples are not kept: the other
// build's of the same round were not all taken, so the round has no pair.
class RoundCut : public Error {
 public:
  using Error::Error;
};
// `warmup` untimed passes, then `n` timed ones, each offered to `throttle`; a dropped sample waits
// the rule's recovery time before the next. `clock_mhz` replaces every pass's own clock reading
// (an injected fault). A `gate` that answers a reason throws RoundCut with it.
TimedSamples timed_samples(const PassFn& pass, int warmup, int n, ThrottleFilter& throttle,
                           std::optional<double> clock_mhz, const SampleGate& gate = {});

// How a configuration stands: failed, with why, when the check failed or the throttle filter
// dropped more than half its samples; else ok. The check's verdict wins: a wrong output is the
// graver finding.
struct Standing {
  RunStatus status = RunStatus::ok;
  std::string reason;
};
Standing standing_of(const Config& cfg, const std::optional<CheckedPass>& check, const ThrottleFilter* throttle);

// Adaptive sampling: why sampling stops after this round ("" to take another), the same on every
// process of `group` (bench/sweep/distributed.hpp, agree_to_stop).
std::string stop_verdict(const StoppingRule& rule, std::span<const double> samples_ms, int rounds_done, double spent_s,
                         ring::ProcessGroup* group);

// --trace: the median pass so far as OUT/traces/<config id>.json for Perfetto (the primary process)
// and one Kineto file per rank in OUT/traces/<config id>/ for HTA, each written by the process that
// hosts the rank. Returns why a write failed, or "": a trace costs the trace, never the measurement.
std::string write_traces(const RunOptions& opts, const Config& cfg, const Timeline& median_pass,
                         const ring::ProcessGroup* group);

}  // namespace rb::bench
