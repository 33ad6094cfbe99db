// The metric registry's entries and lookups.
#include "reports/results/metric_registry.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::reports {
namespace {

using Value = std::optional<double>;

Value median_ms(const RunRecord& r, const MetricContext&) { return r.timing.median_ms; }
Value noise_pct(const RunRecord& r, const MetricContext&) { return r.timing.noise_pct; }
Value tflops(const RunRecord& r, const MetricContext&) { return r.metrics.attention_tflops; }
Value tflops_slowest(const RunRecord& r, const MetricContext&) { return r.metrics.attention_tflops_slowest_rank; }
Value tflops_aggregate(const RunRecord& r, const MetricContext&) { return r.metrics.attention_tflops_aggregate; }
Value overlap(const RunRecord& r, const MetricContext&) { return r.metrics.overlap_fraction; }
Value exposed_comm(const RunRecord& r, const MetricContext&) { return r.metrics.exposed_comm_ms; }
Value imbalance(const RunRecord& r, const MetricContext&) { return r.metrics.imbalance; }
Value work_imbalance(const RunRecord& r, const MetricContext&) {
  return r.metrics.work_imbalance ? r.metrics.work_imbalance : r.plan.work_imbalance;
}
Value bandwidth(const RunRecord& r, const MetricContext&) { return r.metrics.comm_bandwidth_gbyte_per_s; }

// GB/s → Gbit/s, over the link's Gbit/s: the check's link, else the run's link model.
Value bandwidth_fraction(const RunRecord& r, const MetricContext& ctx) {
  std::optional<double> link = ctx.link_gbps;
  if (!link && r.config.link_gbps && *r.config.link_gbps > 0) link = r.config.link_gbps;
  if (!r.metrics.comm_bandwidth_gbyte_per_s || !link) return std::nullopt;
  return *r.metrics.comm_bandwidth_gbyte_per_s * 8.0 / *link;
}

Value gpu_throttled(const RunRecord& r, const MetricContext&) {
  const GpuThrottle t = r.throttle();
  return t.measured ? Value(t.held_down ? 1.0 : 0.0) : std::nullopt;
}

Value dropped_fraction(const RunRecord& r, const MetricContext&) {
  const GpuThrottle t = r.throttle();
  return t.clock_measured && t.taken > 0 ? Value(static_cast<double>(t.dropped) / t.taken) : std::nullopt;
}

std::vector<std::vector<double>> time_rounds(const RunRecord& r) {
  if (r.timing.samples_ms.empty()) return {};
  return r.timing.rounds_of_samples();
}

// Per-sample TFLOP/s is a monotone transform of per-sample time, divided as the headline is: by
// the GPUs at work (a converted older record has them too; one that lacks them had one GPU per rank).
std::vector<std::vector<double>> tflops_rounds(const RunRecord& r) {
  const double gpus = r.metrics.attention_tflops_gpus.value_or(r.config.cp);
  if (!r.plan.flops || *r.plan.flops <= 0 || gpus <= 0) return {};
  std::vector<std::vector<double>> out;
  for (const auto& round : time_rounds(r)) {
    std::vector<double> t;
    for (const double ms : round)
      if (ms > 0) t.push_back(*r.plan.flops / gpus / ms / 1e9);
    if (!t.empty()) out.push_back(std::move(t));
  }
  return out;
}

// A pass with a backward (2.10.0): each part's median, per sample, and the metrics of its part.
Value fwd_ms(const RunRecord& r, const MetricContext&) { return r.timing.fwd_median_ms; }
Value bwd_ms(const RunRecord& r, const MetricContext&) { return r.timing.bwd_median_ms; }
std::vector<std::vector<double>> fwd_rounds(const RunRecord& r) {
  if (r.timing.fwd_samples_ms.empty()) return {};
  return r.timing.rounds_of(r.timing.fwd_samples_ms);
}
std::vector<std::vector<double>> bwd_rounds(const RunRecord& r) {
  if (r.timing.bwd_samples_ms.empty()) return {};
  return r.timing.rounds_of(r.timing.bwd_samples_ms);
}
Value bwd_tflops(const RunRecord& r, const MetricContext&) {
  return r.metrics_bwd ? r.metrics_bwd->attention_tflops : std::nullopt;
}
Value bwd_exposed_comm(const RunRecord& r, const MetricContext&) {
  return r.metrics_bwd ? r.metrics_bwd->exposed_comm_ms : std::nullopt;
}
Value bwd_overlap(const RunRecord& r, const MetricContext&) {
  return r.metrics_bwd ? r.metrics_bwd->overlap_fraction : std::nullopt;
}
Value fwd_exposed_comm(const RunRecord& r, const MetricContext&) {
  return r.metrics_fwd ? r.metrics_fwd->exposed_comm_ms : std::nullopt;
}
Value fwd_overlap(const RunRecord& r, const MetricContext&) {
  return r.metrics_fwd ? r.metrics_fwd->overlap_fraction : std::nullopt;
}
Value gradient_error(const RunRecord& r, const MetricContext&) {
  if (!r.correctness || !r.correctness->gradients) return std::nullopt;
  std::optional<double> err;
  for (const auto* t : {&r.correctness->gradients->dq, &r.correctness->gradients->dk, &r.correctness->gradients->dv})
    if (*t && (*t)->max_abs_err) err = err ? std::max(*err, *(*t)->max_abs_err) : (*t)->max_abs_err;
  return err;
}

std::optional<std::pair<double, double>> time_spread(const RunRecord& r) {
  if (!r.timing.min_ms || !r.timing.p90_ms) return std::nullopt;
  return std::pair{*r.timing.min_ms, *r.timing.p90_ms};
}

// clang-format off
const Metric kMetrics[] = {
    {.name = "correctness", .source = "correctness.passed",
     .description = "status ok and correctness.passed (no bounds)", .docs = "docs/formats.md#resultsjsonl-and-resultsjson"},
    {.name = "attention_tflops", .compare_name = "tflops", .unit = "TFLOP/s per GPU", .lower_is_better = false,
     .source = "metrics.attention_tflops, per GPU (samples: plan.flops / metrics.attention_tflops_gpus / timing.samples_ms)",
     .description = "metrics.attention_tflops: plan FLOPs / the GPUs at work / pass time, what one GPU sustains",
     .docs = "docs/metrics.md#whole-pass-top-level", .value = tflops, .rounds = tflops_rounds},
    {.name = "attention_tflops_per_rank", .unit = "TFLOP/s per GPU", .lower_is_better = false,
     .source = "metrics.attention_tflops",
     .description = "the same as attention_tflops (its name when that was the sum over ranks)",
     .docs = "docs/metrics.md#whole-pass-top-level", .value = tflops},
    {.name = "attention_tflops_slowest_rank", .unit = "TFLOP/s", .lower_is_better = false,
     .source = "metrics.attention_tflops_slowest_rank",
     .description = "metrics.attention_tflops_slowest_rank: the lowest rank's FLOPs / its attention time",
     .docs = "docs/metrics.md#whole-pass-top-level", .value = tflops_slowest},
    {.name = "attention_tflops_aggregate", .unit = "TFLOP/s", .lower_is_better = false,
     .source = "metrics.attention_tflops_aggregate",
     .description = "metrics.attention_tflops_aggregate: plan FLOPs / pass time, summed over ranks",
     .docs = "docs/metrics.md#whole-pass-top-level", .value = tflops_aggregate},
    {.name = "overlap_fraction", .compare_name = "overlap", .lower_is_better = false,
     .source = "metrics.overlap_fraction", .description = "metrics.overlap_fraction", .docs = "docs/metrics.md#whole-pass-top-level",
     .comm_clock = true, .value = overlap},
    {.name = "exposed_comm_ms", .compare_name = "exposed_comm", .unit = "ms", .source = "metrics.exposed_comm_ms",
     .description = "metrics.exposed_comm_ms", .docs = "docs/metrics.md#whole-pass-top-level", .comm_clock = true, .value = exposed_comm},
    {.name = "imbalance", .compare_name = "imbalance", .source = "metrics.imbalance",
     .description = "metrics.imbalance (measured)", .docs = "docs/metrics.md#whole-pass-top-level", .stand_in = "work_imbalance",
     .value = imbalance},
    {.name = "work_imbalance", .source = "metrics.work_imbalance",
     .description = "metrics.work_imbalance (exact, from the plan)", .docs = "docs/metrics.md#whole-pass-top-level", .value = work_imbalance},
    {.name = "comm_bandwidth_gbyte_per_s", .unit = "GB/s", .lower_is_better = false,
     .source = "metrics.comm_bandwidth_gbyte_per_s", .description = "metrics.comm_bandwidth_gbyte_per_s",
     .docs = "docs/metrics.md#whole-pass-top-level", .value = bandwidth},
    {.name = "comm_bandwidth_fraction", .lower_is_better = false,
     .source = "metrics.comm_bandwidth_gbyte_per_s · 8 / link_gbps",
     .description = "metrics.comm_bandwidth_gbyte_per_s · 8 / link_gbps; N/A for runs whose transfers crossed no link",
     .docs = "docs/metrics.md#whole-pass-top-level", .value = bandwidth_fraction},
    {.name = "gpu_throttled", .source = "gpu_state",
     .description = "1 when NVML saw heat or power hold a GPU's clock down before or after the run (gpu_state), "
                    "else 0; N/A where NVML was not available",
     .docs = "docs/metrics.md#throttled-samples", .value = gpu_throttled},
    {.name = "dropped_sample_fraction", .source = "sm_clock.dropped_count / sm_clock.taken",
     .description = "sm_clock.dropped_count / sm_clock.taken: the timed samples whose SM clock fell under "
                    "--throttle-threshold; N/A without a per-sample clock (a CPU run)",
     .docs = "docs/metrics.md#throttled-samples", .value = dropped_fraction},
    {.name = "median_ms", .compare_name = "time", .unit = "ms", .source = "timing.median_ms (samples: timing.samples_ms)",
     .description = "timing.median_ms", .docs = "docs/formats.md#resultsjsonl-and-resultsjson", .value = median_ms, .rounds = time_rounds,
     .spread = time_spread},
    {.name = "noise_pct", .unit = "%", .source = "timing.noise_pct", .description = "timing.noise_pct",
     .docs = "docs/formats.md#resultsjsonl-and-resultsjson", .value = noise_pct},
    {.name = "fwd_median_ms", .compare_name = "fwd_time", .unit = "ms",
     .source = "timing.phase_ms.fwd.median_ms (samples: timing.phase_ms.fwd.samples_ms)",
     .description = "a pass with a backward: the forward part's median (docs/design.md §3a)",
     .docs = "docs/formats.md#resultsjsonl-and-resultsjson", .value = fwd_ms, .rounds = fwd_rounds},
    {.name = "bwd_median_ms", .compare_name = "bwd_time", .unit = "ms",
     .source = "timing.phase_ms.bwd.median_ms (samples: timing.phase_ms.bwd.samples_ms)",
     .description = "a pass with a backward: the backward part's median (docs/design.md §3a)",
     .docs = "docs/formats.md#resultsjsonl-and-resultsjson", .value = bwd_ms, .rounds = bwd_rounds},
    {.name = "bwd_attention_tflops", .unit = "TFLOP/s per GPU", .lower_is_better = false,
     .source = "phase_metrics.bwd.attention_tflops",
     .description = "the backward part's FLOPs (2.5 times the forward's) / the GPUs at work / its window",
     .docs = "docs/metrics.md#flops-of-the-forward-and-the-backward", .value = bwd_tflops},
    {.name = "bwd_exposed_comm_ms", .unit = "ms", .source = "phase_metrics.bwd.exposed_comm_ms",
     .description = "phase_metrics.bwd.exposed_comm_ms: the backward's transfers with no compute under them",
     .docs = "docs/metrics.md#flops-of-the-forward-and-the-backward", .comm_clock = true, .value = bwd_exposed_comm},
    {.name = "bwd_overlap_fraction", .lower_is_better = false, .source = "phase_metrics.bwd.overlap_fraction",
     .description = "phase_metrics.bwd.overlap_fraction", .docs = "docs/metrics.md#flops-of-the-forward-and-the-backward",
     .comm_clock = true, .value = bwd_overlap},
    {.name = "fwd_exposed_comm_ms", .unit = "ms", .source = "phase_metrics.fwd.exposed_comm_ms",
     .description = "phase_metrics.fwd.exposed_comm_ms: the forward part's, in a pass with a backward",
     .docs = "docs/metrics.md#flops-of-the-forward-and-the-backward", .comm_clock = true, .value = fwd_exposed_comm},
    {.name = "fwd_overlap_fraction", .lower_is_better = false, .source = "phase_metrics.fwd.overlap_fraction",
     .description = "phase_metrics.fwd.overlap_fraction", .docs = "docs/metrics.md#flops-of-the-forward-and-the-backward",
     .comm_clock = true, .value = fwd_overlap},
    {.name = "gradient_max_abs_err", .source = "correctness.gradients.{dq,dk,dv}.max_abs_err",
     .description = "the largest error of dQ, dK and dV against the float64 reference (a backward's)",
     .docs = "docs/design.md#3a-the-backward", .value = gradient_error},
};
// clang-format on

// compare's --metric list, in the order its help and the trend page show them.
constexpr std::string_view kCompareOrder[] = {"time",      "tflops",   "overlap", "exposed_comm",
                                              "imbalance", "fwd_time", "bwd_time"};

}  // namespace

std::span<const Metric> all_metrics() { return kMetrics; }

std::vector<const Metric*> compare_metrics() {
  std::vector<const Metric*> out;
  for (const std::string_view n : kCompareOrder)
    for (const Metric& m : kMetrics)
      if (m.compare_name == n) out.push_back(&m);
  return out;
}

const Metric* find_metric(std::string_view name) {
  for (const Metric& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

const Metric& compare_metric(std::string_view compare_name, std::string_view where) {
  for (const Metric* m : compare_metrics())
    if (m->compare_name == compare_name) return *m;
  std::string choices;
  for (const std::string_view n : kCompareOrder) choices += (choices.empty() ? "" : ", ") + std::string(n);
  throw InputError(std::string(where), std::string(compare_name), "must be one of: " + choices);
}

std::optional<double> value_or_stand_in(const Metric& m, const RunRecord& r, bool* stood_in) {
  if (stood_in) *stood_in = false;
  if (!m.value) return std::nullopt;
  if (auto v = m.value(r, {})) return v;
  if (m.stand_in.empty()) return std::nullopt;
  const Metric* s = find_metric(m.stand_in);
  if (!s || !s->value) return std::nullopt;
  auto v = s->value(r, {});
  if (v && stood_in) *stood_in = true;
  return v;
}

}  // namespace rb::reports
