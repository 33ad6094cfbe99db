// Tolerant extraction of the report's per-run values from results.json.
#include "reports/html/report_runs.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/config_label.hpp"
#include "reports/html/html_text.hpp"
#include "reports/results/run_record.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

std::string str(const json& obj, const char* key, const char* fallback = "") {
  return obj.is_object() && obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : fallback;
}

std::int64_t integer(const json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && obj[key].is_number_integer() ? obj[key].get<std::int64_t>() : 0;
}

// Per-rank values of an array of objects, placed by their "rank" field (else by position).
std::vector<std::optional<double>> per_rank(const json& arr, std::initializer_list<const char*> keys, int cp) {
  std::vector<std::optional<double>> out(static_cast<std::size_t>(std::max(cp, 0)));
  if (!arr.is_array()) return out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& e = arr[i];
    if (!e.is_object()) continue;
    std::int64_t r = static_cast<std::int64_t>(i);
    if (e.contains("rank") && e["rank"].is_number_integer()) r = e["rank"].get<std::int64_t>();
    if (r < 0 || r >= cp) continue;
    out[static_cast<std::size_t>(r)] = first_number(e, keys);
  }
  return out;
}

}  // namespace

std::optional<double> number_at(const json& j, std::initializer_list<const char*> path) {
  const json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object() || !cur->contains(k)) return std::nullopt;
    cur = &(*cur)[k];
  }
  if (!cur->is_number()) return std::nullopt;
  const double v = cur->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::optional<double> first_number(const json& obj, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto v = number_at(obj, {k})) return v;
  return std::nullopt;
}

RunView view_run(const json& run, std::size_t index) {
  RunView v;
  v.index = index;
  v.run = &run;
  const json& cfg = run.at("config");
  v.id = str(cfg, "id");
  v.status = str(run, "status");
  v.reason = str(run, "reason");
  v.seq = integer(cfg, "seq");
  v.cp = static_cast<int>(integer(cfg, "cp"));
  v.heads = static_cast<int>(integer(cfg, "heads"));
  v.kv_heads = static_cast<int>(integer(cfg, "kv_heads"));
  v.head_dim = static_cast<int>(integer(cfg, "head_dim"));
  v.split = str(cfg, "split");
  v.variant = str(cfg, "variant");
  v.dtype = str(cfg, "dtype");
  v.backend = str(cfg, "backend");
  v.transport = str(cfg, "transport");
  v.causal = !(cfg.contains("causal") && cfg["causal"].is_boolean()) || cfg["causal"].get<bool>();
  v.shape_label = shape_label(words(read_run_record(run).config));
  v.shape_key = v.shape_label;

  const json& corr = run.contains("correctness") ? run["correctness"] : json();
  if (corr.is_object() && corr.contains("passed") && corr["passed"].is_boolean())
    v.correct = corr["passed"].get<bool>();
  v.max_abs_err = number_at(corr, {"max_abs_err"});
  const json& timing = run.contains("timing") ? run["timing"] : json();
  v.median_ms = number_at(timing, {"median_ms"});
  v.noise_pct = number_at(timing, {"noise_pct"});
  const json& m = run.contains("metrics") ? run["metrics"] : json();
  v.tflops = number_at(m, {"attention_tflops"});
  v.tflops_slowest = number_at(m, {"attention_tflops_slowest_rank"});
  v.comm_ms = number_at(m, {"comm_time_ms"});
  v.comm_in_flight_ms = number_at(m, {"comm_in_flight_ms"});
  if (m.is_object() && m.contains("comm_basis") && m["comm_basis"].is_string())
    v.comm_basis = m["comm_basis"].get<std::string>();
  if (const json& c = run.contains("cupti") ? run["cupti"] : json(); c.is_object()) {
    if (c.contains("error") && c["error"].is_string()) v.cupti_error = c["error"].get<std::string>();
    v.cupti_traced_ms = number_at(c, {"traced_pass_ms"});
    v.cupti_clean_ms = number_at(c, {"clean_median_ms"});
    v.cupti_overhead_pct = number_at(c, {"overhead_pct"});
    v.cupti_comm_ms = number_at(c, {"metrics", "comm_time_ms"});
    v.cupti_overlap = number_at(c, {"metrics", "overlap_fraction"});
    v.cupti_exposed_ms = number_at(c, {"metrics", "exposed_comm_ms"});
  }
  v.overlap = number_at(m, {"overlap_fraction"});
  v.exposed_comm_ms = first_number(m, {"exposed_comm_ms", "exposed_comm_ms_mean"});
  v.exposed_comm_max_ms = number_at(m, {"exposed_comm_ms_max"});
  v.imbalance = number_at(m, {"imbalance"});
  const json& plan = run.contains("plan") ? run["plan"] : json();
  v.work_imbalance = number_at(plan, {"work_imbalance"});
  if (!v.work_imbalance) v.work_imbalance = number_at(m, {"work_imbalance"});
  if (m.is_object() && m.contains("per_rank"))
    v.rank_attention_ms = per_rank(m["per_rank"], {"attention_time_ms", "attention_ms"}, v.cp);
  if (plan.is_object() && plan.contains("per_rank")) v.rank_work = per_rank(plan["per_rank"], {"work"}, v.cp);
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
  const json& tl = run.contains("timeline") ? run["timeline"] : json();
  v.has_timeline = tl.is_object() && tl.contains("intervals") && tl["intervals"].is_array() && !tl["intervals"].empty();
  return v;
}

std::vector<RunView> view_runs(const json& runs) {
  std::vector<RunView> out;
  out.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) out.push_back(view_run(runs[i], i));
  return out;
}

std::string run_label(const RunView& r, bool with_shape) {
  std::string s = fmt::format("S={} c={} {}", format_tokens(static_cast<double>(r.seq)), r.cp, r.split);
  return with_shape ? s + " " + r.shape_label : s + " " + r.variant;
}

}  // namespace rb::reports
