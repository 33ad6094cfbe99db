// Reading one run of a results file into its type: the one from_json of the record.
#include "reports/results/run_record.hpp"

#include <cmath>

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

// A count or a size that a hand-made file may write as 2.0.
std::optional<std::int64_t> whole(const json& obj, const char* key) {
  if (const auto i = integer(obj, key)) return i;
  const auto d = number(obj, key);
  return d && std::trunc(*d) == *d && std::abs(*d) < 9e15 ? std::optional<std::int64_t>(static_cast<std::int64_t>(*d))
                                                          : std::nullopt;
}

std::optional<bool> boolean(const json& obj, const char* key) {
  const json& v = member(obj, key);
  return v.is_boolean() ? std::optional<bool>(v.get<bool>()) : std::nullopt;
}

std::string text(const json& obj, const char* key) {
  const json& v = member(obj, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::optional<std::string> optional_text(const json& obj, const char* key) {
  const json& v = member(obj, key);
  return v.is_string() ? std::optional<std::string>(v.get<std::string>()) : std::nullopt;
}

std::vector<double> numbers(const json& obj, const char* key) {
  std::vector<double> out;
  const json& v = member(obj, key);
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_number()) out.push_back(x.get<double>());
  return out;
}

std::vector<std::int64_t> integers(const json& obj, const char* key) {
  std::vector<std::int64_t> out;
  const json& v = member(obj, key);
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_number_integer()) out.push_back(x.get<std::int64_t>());
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
  out.phase = member(c, "phase").is_string() ? text(c, "phase") : "fwd";  // before 2.10.0 every pass was one
  out.dkv = text(c, "dkv");
  if (const auto v = integer(c, "ulysses_degree")) out.ulysses_degree = static_cast<int>(*v);
  out.documents = text(c, "documents");
  out.document_lengths = integers(c, "document_lengths");
  out.padding_tokens = integer(c, "padding_tokens");
  out.causal = boolean(c, "causal").value_or(true);
  out.link_gbps = number(c, "link_gbps");
  if (const json& seed = member(c, "seed"); seed.is_number_integer()) out.seed = seed.get<std::uint64_t>();
  if (const auto v = integer(c, "repeats")) out.repeats = static_cast<int>(*v);
  if (const auto v = integer(c, "warmup")) out.warmup = static_cast<int>(*v);
  return out;
}

std::optional<RecordCorrectness> read_correctness(const json& c) {
  if (!c.is_object()) return std::nullopt;
  RecordCorrectness out;
  out.checked = boolean(c, "checked").value_or(false);
  out.rows_checked = integer(c, "rows_checked");
  out.all_rows = boolean(c, "all_rows");
  out.max_abs_err = number(c, "max_abs_err");
  out.rel_l2_err = number(c, "rel_l2_err");
  out.over_tolerance = integer(c, "over_tolerance");
  out.tolerance = number(c, "tolerance");
  out.tolerance_basis = text(c, "tolerance_basis");
  out.passed = boolean(c, "passed");
  if (const json& g = member(c, "gradients"); g.is_object()) {
    auto one = [&](const char* key) -> std::optional<RecordGradientCheck> {
      const json& t = member(g, key);
      if (!t.is_object()) return std::nullopt;
      return RecordGradientCheck{.rows_checked = integer(t, "rows_checked"),
                                 .over_tolerance = integer(t, "over_tolerance"),
                                 .all_rows = boolean(t, "all_rows"),
                                 .passed = boolean(t, "passed"),
                                 .max_abs_err = number(t, "max_abs_err"),
                                 .rel_l2_err = number(t, "rel_l2_err")};
    };
    out.gradients = RecordGradients{.tolerance = number(g, "tolerance"),
                                    .tolerance_basis = text(g, "tolerance_basis"),
                                    .dq = one("dq"),
                                    .dk = one("dk"),
                                    .dv = one("dv"),
                                    .dkv_unchecked = text(g, "dkv_unchecked"),
                                    .passed = boolean(g, "passed")};
  }
  return out;
}

std::optional<RecordKernelChoice> read_kernel_choice(const json& k) {
  if (!k.is_object()) return std::nullopt;
  RecordKernelChoice out;
  out.requested = text(k, "requested");
  out.chosen = text(k, "chosen");
  out.why = optional_text(k, "why");
  if (const json& plans = member(k, "cudnn_plans"); plans.is_object())
    for (const auto& [shape, plan] : plans.items())
      if (plan.is_string()) out.cudnn_plans[shape] = plan.get<std::string>();
  if (const json& graphs = member(k, "cudnn_graphs"); graphs.is_object())
    for (const auto& [shape, g] : graphs.items())
      out.cudnn_graphs[shape] = RecordCudnnGraph{text(g, "implementation"), number(g, "build_ms")};
  out.cudnn_plan_builds = integer(k, "cudnn_plan_builds");
  out.cudnn_plan_build_ms = number(k, "cudnn_plan_build_ms");
  return out;
}

RecordTiming read_timing(const json& t) {
  RecordTiming out;
  out.present = t.is_object();
  out.count = integer(t, "count");
  out.min_ms = number(t, "min_ms");
  out.median_ms = number(t, "median_ms");
  out.mean_ms = number(t, "mean_ms");
  out.p90_ms = number(t, "p90_ms");
  out.p99_ms = number(t, "p99_ms");
  out.max_ms = number(t, "max_ms");
  out.stdev_ms = number(t, "stdev_ms");
  out.noise_pct = number(t, "noise_pct");
  out.samples_ms = numbers(t, "samples_ms");
  out.warmup = integer(t, "warmup");
  out.rounds = integer(t, "rounds");
  out.round_counts = integers(t, "round_counts");
  out.rounds_planned = integer(t, "rounds_planned");
  out.stopped_by = optional_text(t, "stopped_by");
  if (const json& s = member(t, "stopping"); s.is_object())
    out.stopping = RecordStopping{.max_noise_pct = number(s, "max_noise_pct").value_or(0),
                                  .min_samples = integer(s, "min_samples").value_or(0),
                                  .max_time_s = number(s, "max_time_s").value_or(0)};
  out.interleaved = boolean(t, "interleaved");
  if (const json& phases = member(t, "phase_ms"); phases.is_object()) {
    if (const json& f = member(phases, "fwd"); f.is_object()) {
      out.fwd_median_ms = number(f, "median_ms");
      out.fwd_samples_ms = numbers(f, "samples_ms");
    }
    if (const json& b = member(phases, "bwd"); b.is_object()) {
      out.bwd_median_ms = number(b, "median_ms");
      out.bwd_samples_ms = numbers(b, "samples_ms");
    }
  }
  out.clock = text(t, "clock");
  out.rank_mode = optional_text(t, "rank_mode");
  out.launch = optional_text(t, "launch");
  out.l2 = optional_text(t, "l2");
  out.cpu_binding = optional_text(t, "cpu_binding");
  out.devices = integer(t, "devices");
  out.machine_probe_ms = numbers(t, "machine_probe_ms");
  for (const double x : numbers(t, "machine_probe_core_spread"))
    if (std::isfinite(x)) out.machine_probe_core_spread.push_back(x);
  if (const auto v = integer(t, "machine_probe_version")) out.machine_probe_version = static_cast<int>(*v);
  return out;
}

std::vector<RecordStepTime> read_step_times(const json& parent, const char* key) {
  std::vector<RecordStepTime> out;
  if (const json& steps = member(parent, key); steps.is_array())
    for (const auto& s : steps)
      if (s.is_object()) out.push_back({.step = integer(s, "step").value_or(0), .time_ms = number(s, "time_ms")});
  return out;
}

RecordRankMetrics read_rank_metrics(const json& r, std::size_t position) {
  RecordRankMetrics out;
  out.rank = integer(r, "rank").value_or(static_cast<std::int64_t>(position));
  out.interval_count = integer(r, "interval_count");
  out.comm_time_ms = number(r, "comm_time_ms");
  out.comm_in_flight_ms = number(r, "comm_in_flight_ms");
  out.comm_basis = text(r, "comm_basis");
  out.compute_time_ms = number(r, "compute_time_ms");
  out.memory_time_ms = number(r, "memory_time_ms");
  out.overlap_time_ms = number(r, "overlap_time_ms");
  out.overlap_fraction = number(r, "overlap_fraction");
  out.exposed_comm_ms = number(r, "exposed_comm_ms");
  out.attention_time_ms = number(r, "attention_time_ms");
  if (!out.attention_time_ms) out.attention_time_ms = number(r, "attention_ms");
  out.busy_time_ms = number(r, "busy_time_ms");
  out.comm_bytes = integer(r, "comm_bytes");
  out.comm_bandwidth_gbyte_per_s = number(r, "comm_bandwidth_gbyte_per_s");
  out.attention_tflops = number(r, "attention_tflops");
  out.steps = read_step_times(r, "steps");
  out.tail_ms = number(r, "tail_ms");
  return out;
}

RecordMetrics read_metrics(const json& m) {
  RecordMetrics out;
  out.present = m.is_object();
  out.window_ms = number(m, "window_ms");
  out.rank_count = integer(m, "rank_count");
  out.comm_time_ms = number(m, "comm_time_ms");
  out.comm_in_flight_ms = number(m, "comm_in_flight_ms");
  out.comm_basis = text(m, "comm_basis");
  out.compute_time_ms = number(m, "compute_time_ms");
  out.memory_time_ms = number(m, "memory_time_ms");
  out.overlap_time_ms = number(m, "overlap_time_ms");
  out.overlap_fraction = number(m, "overlap_fraction");
  out.exposed_comm_ms = number(m, "exposed_comm_ms");
  out.exposed_comm_ms_max = number(m, "exposed_comm_ms_max");
  out.exposed_comm_ms_mean = number(m, "exposed_comm_ms_mean");
  out.imbalance = number(m, "imbalance");
  out.imbalance_basis = text(m, "imbalance_basis");
  out.work_imbalance = number(m, "work_imbalance");
  out.step_times = read_step_times(m, "step_times");
  out.critical_path_ms = number(m, "critical_path_ms");
  out.pass_time_ms = number(m, "pass_time_ms");
  out.attention_tflops = number(m, "attention_tflops");
  if (const auto gpus = whole(m, "attention_tflops_gpus")) out.attention_tflops_gpus = static_cast<int>(*gpus);
  out.attention_tflops_aggregate = number(m, "attention_tflops_aggregate");
  out.attention_tflops_slowest_rank = number(m, "attention_tflops_slowest_rank");
  out.slowest_rank = integer(m, "slowest_rank");
  out.comm_bytes = integer(m, "comm_bytes");
  out.comm_bandwidth_gbyte_per_s = number(m, "comm_bandwidth_gbyte_per_s");
  out.busy_time_ms = number(m, "busy_time_ms");
  out.launch_overhead_ms = number(m, "launch_overhead_ms");
  out.eager_minus_graph_ms = number(m, "eager_minus_graph_ms");
  out.timeline_pass_ms = number(m, "timeline_pass_ms");
  if (const json& ranks = member(m, "per_rank"); ranks.is_array()) {
    out.per_rank.emplace();
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i].is_object()) out.per_rank->push_back(read_rank_metrics(ranks[i], i));
  }
  return out;
}

RecordPlanStep read_plan_step(const json& s) {
  const json& pairs = member(s, "pairs");
  return {.step = integer(s, "step").value_or(0),
          .sources = integers(s, "sources"),
          .unmasked_pairs = integer(s, "unmasked_pairs").value_or(0),
          .recv_bytes = integer(s, "recv_bytes").value_or(0),
          .send_bytes = integer(s, "send_bytes").value_or(0),
          .full = integer(pairs, "full").value_or(0),
          .partial = integer(pairs, "partial").value_or(0),
          .skip = integer(pairs, "skip").value_or(0)};
}

RecordPlanRank read_plan_rank(const json& r, std::size_t position) {
  RecordPlanRank out;
  out.rank = integer(r, "rank").value_or(static_cast<std::int64_t>(position));
  out.tokens = integer(r, "tokens").value_or(0);
  if (const json& segs = member(r, "segments"); segs.is_array())
    for (const auto& s : segs)
      if (s.is_array() && s.size() == 3 && s[0].is_number_integer() && s[1].is_number_integer() &&
          s[2].is_number_integer())
        out.segments.push_back({s[0].get<std::int64_t>(), s[1].get<std::int64_t>(), s[2].get<std::int64_t>()});
  out.unmasked_pairs = integer(r, "unmasked_pairs").value_or(0);
  out.work = whole(r, "work");
  out.recv_bytes = integer(r, "recv_bytes").value_or(0);
  if (const json& steps = member(r, "steps"); steps.is_array()) {
    out.steps.emplace();
    for (const auto& s : steps)
      if (s.is_object()) out.steps->push_back(read_plan_step(s));
  }
  return out;
}

RecordPlan read_plan(const json& p) {
  RecordPlan out;
  out.present = p.is_object();
  out.work_imbalance = number(p, "work_imbalance");
  out.total_work = integer(p, "total_work");
  out.flops = number(p, "flops");
  out.bytes_moved = integer(p, "bytes_moved");
  out.kv_bytes_per_token = integer(p, "kv_bytes_per_token");
  if (const json& ranks = member(p, "per_rank"); ranks.is_array()) {
    out.per_rank.emplace();
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (ranks[i].is_object()) out.per_rank->push_back(read_plan_rank(ranks[i], i));
  }
  out.forward_flops = number(p, "forward_flops");
  if (const json& b = member(p, "backward"); b.is_object()) {
    RecordPlanBackward back;
    back.grads = text(b, "grads");
    back.flops = number(b, "flops");
    back.bytes_moved = integer(b, "bytes_moved");
    back.grad_bytes_per_token = integer(b, "grad_bytes_per_token");
    if (const json& ranks = member(b, "per_rank"); ranks.is_array())
      for (std::size_t i = 0; i < ranks.size(); ++i) {
        const json& r = ranks[i];
        if (!r.is_object()) continue;
        RecordPlanBackwardRank x{.rank = integer(r, "rank").value_or(static_cast<std::int64_t>(i)),
                                 .recv_bytes = integer(r, "recv_bytes").value_or(0),
                                 .tail_recv_bytes = integer(r, "tail_recv_bytes").value_or(0),
                                 .steps = std::nullopt};
        if (const json& steps = member(r, "steps"); steps.is_array()) {
          x.steps.emplace();
          for (const auto& s : steps)
            if (s.is_object()) x.steps->push_back(read_plan_step(s));
        }
        back.per_rank.push_back(std::move(x));
      }
    out.backward = std::move(back);
  }
  return out;
}

RecordSmClock read_sm_clock(const json& c) {
  RecordSmClock out;
  out.method = text(c, "method");
  out.nominal_mhz = any_number(c, "nominal_mhz");
  out.threshold_pct = number(c, "threshold_pct");
  out.threshold_mhz = any_number(c, "threshold_mhz");
  out.recovery_ms = number(c, "recovery_ms");
  if (const json& ms = member(c, "samples_ms"); ms.is_array())
    for (const auto& x : ms) out.samples_ms.push_back(x.is_number() ? x.get<double>() : 0.0);  // keeps the order
  if (const json& mhz = member(c, "samples_mhz"); mhz.is_array())
    for (const auto& x : mhz)
      out.samples_mhz.push_back(x.is_number() ? std::optional<double>(x.get<double>()) : std::nullopt);
  out.dropped = integers(c, "dropped");
  out.dropped_count = integer(c, "dropped_count");
  out.taken = integer(c, "taken");
  return out;
}

std::optional<std::vector<RecordGpuDevice>> read_gpu_devices(const json& list) {
  if (!list.is_array()) return std::nullopt;
  std::vector<RecordGpuDevice> out;
  for (const auto& g : list) {
    if (!g.is_object()) continue;
    RecordGpuDevice d;
    d.pci_bus_id = optional_text(g, "pci_bus_id");
    d.unavailable = optional_text(g, "unavailable");
    d.temperature_c = integer(g, "temperature_c");
    d.power_w = number(g, "power_w");
    d.power_limit_w = number(g, "power_limit_w");
    d.sm_clock_mhz = integer(g, "sm_clock_mhz");
    if (const json& reasons = member(g, "clock_event_reasons"); reasons.is_array()) {
      d.clock_event_reasons.emplace();
      for (const auto& r : reasons)
        if (r.is_string()) d.clock_event_reasons->push_back(r.get<std::string>());
    }
    d.thermal_or_power_limited = boolean(g, "thermal_or_power_limited");
    d.mig_mode = optional_text(g, "mig_mode");
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<RecordTimeline> read_timeline(const json& tl) {
  const json& intervals = member(tl, "intervals");
  if (!intervals.is_array() || intervals.empty()) return std::nullopt;
  RecordTimeline out;
  out.clock = text(tl, "clock");
  out.window_ms = any_number(tl, "window_ms");
  out.truncated = boolean(tl, "truncated").value_or(false);
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
    x.bytes = integer(iv, "bytes").value_or(0);
    x.begin_ms = *begin;
    x.end_ms = *end;
    x.phase = static_cast<int>(integer(iv, "phase").value_or(0));
    out.intervals.push_back(std::move(x));
  }
  return out;
}

// The numeric fields of an object down to three levels, by dotted path, but for `skip` at the top.
void numeric_fields(const json& j, const std::string& prefix, int depth, std::map<std::string, double>& out,
                    const std::map<std::string, double>& skip) {
  if (!j.is_object() || depth > 2) return;
  for (const auto& [k, v] : j.items()) {
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    if (v.is_number() && !skip.contains(key))
      out[key] = v.get<double>();
    else if (v.is_object())
      numeric_fields(v, key, depth + 1, out, skip);
  }
}

RecordModel read_model(const json& m) {
  RecordModel out;
  out.kind = text(m, "kind");
  out.basis = text(m, "basis");
  out.pass_ms = number(m, "pass_ms");
  out.measured_pass_ms = number(m, "measured_pass_ms");
  out.measured_over_model = number(m, "measured_over_model");
  out.compute_critical_path_ms = number(m, "compute_critical_path_ms");
  out.exposed_comm_ms_mean = number(m, "exposed_comm_ms_mean");
  out.exposed_comm_ms_max = number(m, "exposed_comm_ms_max");
  out.overlap_fraction = number(m, "overlap_fraction");
  out.idle_ms_max = number(m, "idle_ms_max");
  // The simulator's own fields are typed above; every other number is kept by its path.
  out.timeline = read_timeline(member(m, "timeline"));
  RecordModel typed = out;
  typed.other_numbers.clear();
  json rest = m;
  if (rest.is_object()) rest.erase("timeline");  // typed above, not a model number
  numeric_fields(rest, "", 0, out.other_numbers, typed.numbers());
  return out;
}

// The CUPTI pass's part; nullopt when it is not an object (no pass was traced).
std::optional<RecordCupti> read_cupti(const json& c) {
  if (!c.is_object()) return std::nullopt;
  RecordCupti out;
  out.error = text(c, "error");
  out.traced_pass_ms = number(c, "traced_pass_ms");
  out.clean_median_ms = number(c, "clean_median_ms");
  out.overhead_pct = number(c, "overhead_pct");
  out.window_ms = number(c, "window_ms");
  out.activity_ms = number(c, "activity_ms");
  out.dropped_records = integer(c, "dropped_records");
  out.ignored_records = integer(c, "ignored_records");
  out.unattributed_records = integer(c, "unattributed_records");
  out.intervals = integer(c, "intervals");
  out.intervals_by_node = integer(c, "intervals_by_node");
  out.metrics = read_metrics(member(c, "metrics"));
  return out;
}

}  // namespace

RunRecord read_run_record(const json& run) {
  RunRecord r;
  r.status = parse_run_status(text(run, "status")).value_or(RunStatus::failed);
  r.reason = text(run, "reason");
  r.config = read_config(member(run, "config"));
  r.kernel_choice = read_kernel_choice(member(run, "kernel_choice"));
  r.correctness = read_correctness(member(run, "correctness"));
  r.timing = read_timing(member(run, "timing"));
  r.plan = read_plan(member(run, "plan"));
  r.metrics = read_metrics(member(run, "metrics"));
  if (const json& phases = member(run, "phase_metrics"); phases.is_object()) {
    if (const json& f = member(phases, "fwd"); f.is_object()) r.metrics_fwd = read_metrics(f);
    if (const json& b = member(phases, "bwd"); b.is_object()) r.metrics_bwd = read_metrics(b);
  }
  r.timeline = read_timeline(member(run, "timeline"));
  if (const json& m = member(run, "model"); m.is_object()) r.model = read_model(m);
  r.cupti = read_cupti(member(run, "cupti"));
  if (const json& g = member(run, "gpu_state"); g.is_object())
    r.gpu_state = RecordGpuState{.start = read_gpu_devices(member(g, "start")),
                                 .end = read_gpu_devices(member(g, "end"))};
  if (const json& c = member(run, "sm_clock"); c.is_object()) r.sm_clock = read_sm_clock(c);
  r.trace_error = text(run, "trace_error");
  r.alias_of = text(run, "alias_of");
  if (const json& places = member(run, "placement"); places.is_array())
    for (const json& p : places)
      if (p.is_object()) r.placement.push_back({integer(p, "rank").value_or(0), text(p, "host"), text(p, "device")});
  return r;
}

GpuThrottle RunRecord::throttle() const { return gpu_throttle(gpu_state, sm_clock); }

}  // namespace rb::reports
