// Reading one run of a results file into its type.
#include "reports/results/run_record.hpp"

#include <cmath>

#include "common/error.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

const json& member(const json& obj, const char* key) {
  static const json absent;
  return obj.is_object() && obj.contains(key) ? obj.at(key) : absent;
}

// A finite number, or nullopt when the field is absent, null or not finite.
std::optional<double> number(const json& obj, const char* key) {
  const json& v = member(obj, key);
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

std::optional<std::int64_t> integer(const json& obj, const char* key) {
  const json& v = member(obj, key);
  return v.is_number_integer() ? std::optional<std::int64_t>(v.get<std::int64_t>()) : std::nullopt;
}

std::string text(const json& obj, const char* key) {
  const json& v = member(obj, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::vector<double> numbers(const json& obj, const char* key) {
  std::vector<double> out;
  const json& v = member(obj, key);
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_number()) out.push_back(x.get<double>());
  return out;
}

RecordConfig read_config(const json& c) {
  RecordConfig out;
  out.id = text(c, "id");
  out.seq = integer(c, "seq").value_or(0);
  out.cp = static_cast<int>(integer(c, "cp").value_or(0));
  out.heads = static_cast<int>(integer(c, "heads").value_or(0));
  out.kv_heads = static_cast<int>(integer(c, "kv_heads").value_or(0));
  out.head_dim = static_cast<int>(integer(c, "head_dim").value_or(0));
  out.split = text(c, "split");
  out.variant = text(c, "variant");
  out.dtype = text(c, "dtype");
  out.backend = text(c, "backend");
  out.transport = member(c, "transport").is_string() ? text(c, "transport") : "local";
  out.kernel = member(c, "kernel").is_string() ? text(c, "kernel") : "ringbench";
  out.causal = !member(c, "causal").is_boolean() || member(c, "causal").get<bool>();
  out.link_gbps = number(c, "link_gbps");
  return out;
}

RecordTiming read_timing(const json& t) {
  RecordTiming out;
  out.samples_ms = numbers(t, "samples_ms");
  if (const json& counts = member(t, "round_counts"); counts.is_array())
    for (const auto& n : counts)
      if (n.is_number_integer()) out.round_counts.push_back(n.get<std::int64_t>());
  out.rounds = integer(t, "rounds");
  out.devices = integer(t, "devices");
  out.median_ms = number(t, "median_ms");
  out.min_ms = number(t, "min_ms");
  out.p90_ms = number(t, "p90_ms");
  out.noise_pct = number(t, "noise_pct");
  out.machine_probe_ms = numbers(t, "machine_probe_ms");
  for (const double x : numbers(t, "machine_probe_core_spread"))
    if (std::isfinite(x)) out.machine_probe_core_spread.push_back(x);
  if (const auto v = integer(t, "machine_probe_version")) out.machine_probe_version = static_cast<int>(*v);
  return out;
}

RecordMetrics read_metrics(const json& m) {
  RecordMetrics out;
  out.attention_tflops = number(m, "attention_tflops");
  out.attention_tflops_gpus = number(m, "attention_tflops_gpus");
  out.attention_tflops_slowest_rank = number(m, "attention_tflops_slowest_rank");
  out.attention_tflops_aggregate = number(m, "attention_tflops_aggregate");
  out.overlap_fraction = number(m, "overlap_fraction");
  out.exposed_comm_ms = number(m, "exposed_comm_ms");
  out.imbalance = number(m, "imbalance");
  out.work_imbalance = number(m, "work_imbalance");
  out.comm_bandwidth_gbyte_per_s = number(m, "comm_bandwidth_gbyte_per_s");
  out.comm_basis = text(m, "comm_basis");
  return out;
}

}  // namespace

std::vector<std::vector<double>> RecordTiming::rounds_of_samples() const {
  const auto count = static_cast<std::int64_t>(samples_ms.size());
  std::vector<std::int64_t> sizes;  // samples per round, in order; rounds that kept none left out
  std::int64_t total = 0;
  for (const std::int64_t n : round_counts)
    if (n > 0) {
      sizes.push_back(n);
      total += n;
    }
  if (total != count) {  // written before 1.2.0, or not this run's layout: the even split
    sizes.clear();
    const std::int64_t r = rounds.value_or(1);
    if (r >= 2 && r <= count)
      for (std::int64_t k = 0; k < r; ++k) sizes.push_back(count / r + (k < count % r ? 1 : 0));
  }
  if (sizes.size() < 2) return {samples_ms};
  std::vector<std::vector<double>> out;
  std::int64_t at = 0;
  for (const std::int64_t n : sizes) {
    out.emplace_back(samples_ms.begin() + at, samples_ms.begin() + at + n);
    at += n;
  }
  return out;
}

RunRecord read_run_record(const json& run) {
  RunRecord r;
  const std::string status = text(run, "status");
  r.status = status == "ok" ? RunStatus::ok : status == "skipped" ? RunStatus::skipped : RunStatus::failed;
  r.reason = text(run, "reason");
  r.config = read_config(member(run, "config"));
  if (const json& c = member(run, "correctness"); c.is_object()) {
    RecordCorrectness rc;
    rc.checked = member(c, "checked").is_boolean() && member(c, "checked").get<bool>();
    if (member(c, "passed").is_boolean()) rc.passed = member(c, "passed").get<bool>();
    rc.max_abs_err = number(c, "max_abs_err");
    r.correctness = rc;
  }
  r.timing = read_timing(member(run, "timing"));
  r.metrics = read_metrics(member(run, "metrics"));
  r.plan.flops = number(member(run, "plan"), "flops");
  r.plan.work_imbalance = number(member(run, "plan"), "work_imbalance");
  r.throttle = gpu_throttle(run);
  return r;
}

std::optional<Transport> RecordConfig::transport_kind() const {
  try {
    return parse_transport(transport, "transport");
  } catch (const InputError&) {
    return std::nullopt;  // a later version's transport
  }
}

ConfigWords words(const RecordConfig& c) {
  return {.seq = c.seq,
          .cp = c.cp,
          .split = c.split,
          .variant = c.variant,
          .heads = c.heads,
          .kv_heads = c.kv_heads,
          .head_dim = c.head_dim,
          .causal = c.causal,
          .dtype = c.dtype,
          .backend = c.backend,
          .transport = c.transport,
          .kernel = c.kernel,
          .link_gbps = c.link_gbps.value_or(0)};
}

std::string label(const RecordConfig& c) { return config_label(words(c)); }

std::string_view to_string(RunStatus s) {
  switch (s) {
    case RunStatus::ok: return "ok";
    case RunStatus::skipped: return "skipped";
    case RunStatus::failed: return "failed";
  }
  return "failed";
}

}  // namespace rb::reports
