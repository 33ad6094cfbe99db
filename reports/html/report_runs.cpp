// The report's per-run values, from each run's RunRecord.
#include "reports/html/report_runs.hpp"

#include "common/scheme_table.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "common/config_label.hpp"
#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

// Per-rank values placed at their rank; a rank outside 0..cp-1 is not one of this run's.
std::vector<std::optional<double>> by_rank(const std::optional<std::vector<RankValue>>& values, int cp) {
  if (!values) return {};
  std::vector<std::optional<double>> out(static_cast<std::size_t>(std::max(cp, 0)));
  for (const RankValue& v : *values)
    if (v.rank >= 0 && v.rank < cp) out[static_cast<std::size_t>(v.rank)] = v.value;
  return out;
}

// The CPUs that ran a cpu run's ranks: the distinct bound CPUs of its placement, else (threads the
// OS placed, or a file before 2.5.0) every CPU of the host.
int cpus_of(const RunRecord& record, std::optional<int> host_cpu_threads) {
  if (record.config.backend != "cpu") return 0;
  std::set<std::pair<std::string, std::string>> bound;
  bool all_bound = !record.placement.empty();
  for (const RecordPlacement& p : record.placement) {
    all_bound &= p.device.rfind("cpu ", 0) == 0;
    bound.emplace(p.host, p.device);
  }
  if (all_bound) return static_cast<int>(bound.size());
  return host_cpu_threads && *host_cpu_threads > 0 ? *host_cpu_threads : 0;
}

}  // namespace

RunView view_run(RunRecord record, std::size_t index, std::optional<int> host_cpu_threads) {
  RunView v;
  v.index = index;
  const RecordConfig& cfg = record.config;
  v.id = cfg.id;
  v.status = std::string(to_string(record.status));
  v.reason = record.reason;
  v.seq = cfg.seq;
  v.cp = cfg.cp;
  v.heads = cfg.heads;
  v.kv_heads = cfg.kv_heads;
  v.head_dim = cfg.head_dim;
  v.split = cfg.split;
  // The strategy: the hybrid with its all-to-all group (docs/design.md §3b).
  v.variant = strategy_label(cfg.variant, cfg.ulysses_degree);
  v.dtype = cfg.dtype;
  v.backend = cfg.backend;
  v.transport = cfg.transport;
  v.causal = cfg.causal;
  v.shape_label = shape_label(words(cfg));
  v.shape_key = v.shape_label;

  if (record.correctness) {
    v.correct = record.correctness->passed;
    v.max_abs_err = record.correctness->max_abs_err;
  }
  v.median_ms = record.timing.median_ms;
  v.noise_pct = record.timing.noise_pct;
  const RecordMetrics& m = record.metrics;
  v.tflops = m.attention_tflops;
  v.tflops_slowest = m.attention_tflops_slowest_rank;
  v.comm_ms = m.comm_time_ms;
  v.comm_in_flight_ms = m.comm_in_flight_ms;
  v.comm_basis = m.comm_basis;
  if (const auto& c = record.cupti) {
    v.cupti_error = c->error;
    v.cupti_traced_ms = c->traced_pass_ms;
    v.cupti_clean_ms = c->clean_median_ms;
    v.cupti_overhead_pct = c->overhead_pct;
    v.cupti_comm_ms = c->metrics.comm_time_ms;
    v.cupti_overlap = c->metrics.overlap_fraction;
    v.cupti_exposed_ms = c->metrics.exposed_comm_ms;
  }
  v.overlap = m.overlap_fraction;
  v.exposed_comm_ms = m.exposed_comm_ms ? m.exposed_comm_ms : m.exposed_comm_ms_mean;
  v.exposed_comm_max_ms = m.exposed_comm_ms_max;
  v.imbalance = m.imbalance;
  v.work_imbalance = record.plan.work_imbalance ? record.plan.work_imbalance : m.work_imbalance;
  v.rank_work = by_rank(record.plan.rank_work(), v.cp);
  // Sized by c only beside a plan, which lists every rank (the reader holds it to c): a record of a
  // huge c with one per-rank figure allocates nothing by it.
  if (!v.rank_work.empty()) v.rank_attention_ms = by_rank(m.rank_attention_ms(), v.cp);
  // docs/design.md §6: imbalance = max_r A_r / mean_r A_r. Derive it when the record predates the metric.
  if (!v.imbalance && !v.rank_attention_ms.empty() &&
      std::all_of(v.rank_attention_ms.begin(), v.rank_attention_ms.end(), [](auto& x) { return x.has_value(); })) {
    double sum = 0, mx = 0;
    for (const auto& a : v.rank_attention_ms) sum += *a, mx = std::max(mx, *a);
    if (sum > 0) {
      v.imbalance = mx / (sum / static_cast<double>(v.rank_attention_ms.size()));
      v.imbalance_derived = true;
    }
  }
  if (v.exposed_comm_ms && v.median_ms && *v.median_ms > 0) v.exposed_share = *v.exposed_comm_ms / *v.median_ms;
  v.has_timeline = record.timeline.has_value();
  v.cpus = cpus_of(record, host_cpu_threads);
  v.record = std::move(record);
  return v;
}

std::vector<RunView> view_runs(const nlohmann::json& runs, std::optional<int> host_cpu_threads) {
  std::vector<RunView> out;
  out.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) out.push_back(view_run(read_run_record(runs[i]), i, host_cpu_threads));
  return out;
}

std::string run_label(const RunView& r, bool with_shape) {
  std::string s = fmt::format("S={} c={} {}", format_tokens(static_cast<double>(r.seq)), r.cp, r.split);
  return with_shape ? s + " " + r.shape_label : s + " " + r.variant;
}

}  // namespace rb::reports
