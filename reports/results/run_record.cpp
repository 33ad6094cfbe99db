// Reading one run of a results file into its type.
#include "reports/results/run_record.hpp"

#include <cmath>

#include "common/error.hpp"
#include "reports/results/json_field.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

const json& member(const json& obj, const char* key) { return json_member(obj, key); }

std::optional<double> number(const json& obj, const char* key) { return json_finite(obj, key); }

// Any number, infinite included: for figures a reader draws as the file has them.
std::optional<double> any_number(const json& obj, const char* key) {
  const json& v = member(obj, key);
  return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
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

// One number of each per_rank[] object: the first of `key`, `old_key` that is one.
std::optional<std::vector<RankValue>> per_rank(const json& parent, const char* key, const char* old_key = nullptr) {
  const json& arr = member(parent, "per_rank");
  if (!arr.is_array()) return std::nullopt;
  std::vector<RankValue> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& e = arr[i];
    if (!e.is_object()) continue;
    RankValue v;
    v.rank = integer(e, "rank").value_or(static_cast<std::int64_t>(i));
    v.value = number(e, key);
    if (!v.value && old_key) v.value = number(e, old_key);
    out.push_back(v);
  }
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
  out.comm_time_ms = number(m, "comm_time_ms");
  out.comm_in_flight_ms = number(m, "comm_in_flight_ms");
  out.exposed_comm_ms_mean = number(m, "exposed_comm_ms_mean");
  out.exposed_comm_ms_max = number(m, "exposed_comm_ms_max");
  out.rank_attention_ms = per_rank(m, "attention_time_ms", "attention_ms");
  return out;
}

RecordCupti read_cupti(const json& c) {
  RecordCupti out;
  out.error = text(c, "error");
  out.traced_pass_ms = number(c, "traced_pass_ms");
  out.clean_median_ms = number(c, "clean_median_ms");
  out.overhead_pct = number(c, "overhead_pct");
  const json& m = member(c, "metrics");
  out.comm_time_ms = number(m, "comm_time_ms");
  out.overlap_fraction = number(m, "overlap_fraction");
  out.exposed_comm_ms = number(m, "exposed_comm_ms");
  return out;
}

RecordSmClock read_sm_clock(const json& c) {
  RecordSmClock out;
  if (const json& ms = member(c, "samples_ms"); ms.is_array())
    for (const auto& x : ms) out.samples_ms.push_back(x.is_number() ? x.get<double>() : 0.0);  // keeps the order
  if (const json& mhz = member(c, "samples_mhz"); mhz.is_array())
    for (const auto& x : mhz)
      out.samples_mhz.push_back(x.is_number() ? std::optional<double>(x.get<double>()) : std::nullopt);
  if (const json& dropped = member(c, "dropped"); dropped.is_array())
    for (const auto& i : dropped)
      if (i.is_number_integer()) out.dropped.push_back(i.get<std::int64_t>());
  out.threshold_mhz = any_number(c, "threshold_mhz");
  out.nominal_mhz = any_number(c, "nominal_mhz");
  out.method = text(c, "method");
  return out;
}

std::optional<RecordTimeline> read_timeline(const json& tl) {
  const json& intervals = member(tl, "intervals");
  if (!intervals.is_array() || intervals.empty()) return std::nullopt;
  RecordTimeline out;
  out.window_ms = any_number(tl, "window_ms");
  out.truncated = member(tl, "truncated").is_boolean() && member(tl, "truncated").get<bool>();
  for (const auto& iv : intervals) {
    const auto begin = any_number(iv, "begin_ms"), end = any_number(iv, "end_ms");
    if (!member(iv, "rank").is_number_integer() || !begin || !end) continue;
    if (!std::isfinite(*begin) || !std::isfinite(*end) || *end < *begin) continue;
    RecordInterval x;
    x.rank = member(iv, "rank").get<int>();
    if (member(iv, "step").is_number_integer()) x.step = member(iv, "step").get<int>();
    x.kind = member(iv, "kind").is_string() ? text(iv, "kind") : "other";
    x.lane = member(iv, "lane").is_string() ? text(iv, "lane") : x.kind;
    x.name = member(iv, "name").is_string() ? text(iv, "name") : x.kind;
    x.begin_ms = *begin;
    x.end_ms = *end;
    out.intervals.push_back(std::move(x));
  }
  return out;
}

// Numeric fields of the model's object down to three levels, by dotted path.
void numeric_fields(const json& j, const std::string& prefix, int depth, std::map<std::string, double>& out) {
  if (!j.is_object() || depth > 2) return;
  for (const auto& [k, v] : j.items()) {
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    if (v.is_number())
      out[key] = v.get<double>();
    else if (v.is_object())
      numeric_fields(v, key, depth + 1, out);
  }
}

RecordModel read_model(const json& m) {
  RecordModel out;
  numeric_fields(m, "", 0, out.numbers);
  out.pass_ms = number(m, "pass_ms");
  const json& memory = member(m, "memory");
  if (const auto gb = number(memory, "gb_per_device"))
    out.memory_gb_per_device = gb;
  else if (const auto bytes = number(memory, "bytes_per_device"))
    out.memory_gb_per_device = *bytes / 1e9;
  else
    out.memory_gb_per_device = number(m, "memory_gb_per_device");
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
  r.status = parse_run_status(status).value_or(RunStatus::failed);
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
  r.plan.rank_work = per_rank(member(run, "plan"), "work");
  r.throttle = gpu_throttle(run);
  if (const json& c = member(run, "cupti"); c.is_object()) r.cupti = read_cupti(c);
  if (const json& c = member(run, "sm_clock"); c.is_object()) r.sm_clock = read_sm_clock(c);
  r.timeline = read_timeline(member(run, "timeline"));
  if (const json& m = member(run, "model"); m.is_object()) r.model = read_model(m);
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

}  // namespace rb::reports
