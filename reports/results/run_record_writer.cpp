// Writing one run's record: the one to_json of the record and its parts.
#include "reports/results/run_record_writer.hpp"

#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json to_json_without_gradients(const RecordCorrectness& c);

json to_json(const RecordGradientCheck& g) {
  return {{"rows_checked", or_null(g.rows_checked)},     {"all_rows", or_null(g.all_rows)},
          {"max_abs_err", or_null(g.max_abs_err)},       {"rel_l2_err", or_null(g.rel_l2_err)},
          {"over_tolerance", or_null(g.over_tolerance)}, {"passed", or_null(g.passed)}};
}

json to_json(const std::optional<RecordGradientCheck>& g) { return g ? to_json(*g) : json(nullptr); }

json to_json(const RecordCorrectness& c) {
  json j = to_json_without_gradients(c);
  if (c.gradients)
    j["gradients"] = {{"tolerance", or_null(c.gradients->tolerance)},
                      {"tolerance_basis", c.gradients->tolerance_basis},
                      {"dq", to_json(c.gradients->dq)},
                      {"dk", to_json(c.gradients->dk)},
                      {"dv", to_json(c.gradients->dv)},
                      {"dkv_unchecked", or_null(c.gradients->dkv_unchecked)},
                      {"passed", or_null(c.gradients->passed)}};
  return j;
}

json to_json_without_gradients(const RecordCorrectness& c) {
  return {{"checked", c.checked},
          {"rows_checked", or_null(c.rows_checked)},
          {"all_rows", or_null(c.all_rows)},
          {"max_abs_err", or_null(c.max_abs_err)},
          {"rel_l2_err", or_null(c.rel_l2_err)},
          {"over_tolerance", or_null(c.over_tolerance)},
          {"tolerance", or_null(c.tolerance)},
          {"tolerance_basis", c.tolerance_basis},
          {"passed", or_null(c.passed)}};
}

json to_json(const RecordKernelChoice& k) {
  json j{{"requested", k.requested}, {"chosen", k.chosen}};
  if (k.why) j["why"] = *k.why;
  if (!k.cudnn_plans.empty()) j["cudnn_plans"] = k.cudnn_plans;
  if (!k.cudnn_graphs.empty()) {
    json graphs = json::object();
    for (const auto& [shape, g] : k.cudnn_graphs) {
      graphs[shape] = {{"implementation", g.implementation}};
      if (g.build_ms) graphs[shape]["build_ms"] = *g.build_ms;
    }
    j["cudnn_graphs"] = std::move(graphs);
  }
  if (k.cudnn_plan_builds) j["cudnn_plan_builds"] = *k.cudnn_plan_builds;
  if (k.cudnn_plan_build_ms) j["cudnn_plan_build_ms"] = *k.cudnn_plan_build_ms;
  return j;
}

json to_json(const RecordTiming& t) {
  if (!t.present) return nullptr;
  json j{{"count", or_null(t.count)},
         {"min_ms", or_null(t.min_ms)},
         {"median_ms", or_null(t.median_ms)},
         {"mean_ms", or_null(t.mean_ms)},
         {"p90_ms", or_null(t.p90_ms)},
         {"p99_ms", or_null(t.p99_ms)},
         {"max_ms", or_null(t.max_ms)},
         {"stdev_ms", or_null(t.stdev_ms)},
         {"noise_pct", or_null(t.noise_pct)},
         {"samples_ms", t.samples_ms},
         {"warmup", or_null(t.warmup)},
         {"rounds", or_null(t.rounds)},
         {"round_counts", t.round_counts},
         {"rounds_planned", or_null(t.rounds_planned)},
         {"stopped_by", or_null(t.stopped_by)},
         {"interleaved", or_null(t.interleaved)},
         {"clock", t.clock}};
  if (t.stopping)
    j["stopping"] = {{"max_noise_pct", t.stopping->max_noise_pct},
                     {"min_samples", t.stopping->min_samples},
                     {"max_time_s", t.stopping->max_time_s}};
  if (t.rank_mode) j["rank_mode"] = *t.rank_mode;
  if (t.launch) j["launch"] = *t.launch;
  if (t.l2) j["l2"] = *t.l2;
  if (t.cpu_binding) j["cpu_binding"] = *t.cpu_binding;
  if (t.devices) j["devices"] = *t.devices;
  if (t.machine_probe_version) {
    j["machine_probe_ms"] = t.machine_probe_ms;
    j["machine_probe_core_spread"] = t.machine_probe_core_spread;
    j["machine_probe_version"] = *t.machine_probe_version;
  }
  if (t.bwd_median_ms) {
    json phases = json::object();
    if (t.fwd_median_ms) phases["fwd"] = {{"median_ms", *t.fwd_median_ms}, {"samples_ms", t.fwd_samples_ms}};
    phases["bwd"] = {{"median_ms", *t.bwd_median_ms}, {"samples_ms", t.bwd_samples_ms}};
    j["phase_ms"] = std::move(phases);
  }
  return j;
}

json to_json(const std::vector<RecordStepTime>& steps) {
  json out = json::array();
  for (const auto& s : steps) out.push_back({{"step", s.step}, {"time_ms", or_null(s.time_ms)}});
  return out;
}

json to_json(const RecordRankMetrics& r) {
  return {{"rank", r.rank},
          {"interval_count", or_null(r.interval_count)},
          {"comm_time_ms", or_null(r.comm_time_ms)},
          {"comm_in_flight_ms", or_null(r.comm_in_flight_ms)},
          {"comm_basis", or_null(r.comm_basis)},
          {"compute_time_ms", or_null(r.compute_time_ms)},
          {"memory_time_ms", or_null(r.memory_time_ms)},
          {"overlap_time_ms", or_null(r.overlap_time_ms)},
          {"overlap_fraction", or_null(r.overlap_fraction)},
          {"exposed_comm_ms", or_null(r.exposed_comm_ms)},
          {"attention_time_ms", or_null(r.attention_time_ms)},
          {"busy_time_ms", or_null(r.busy_time_ms)},
          {"comm_bytes", or_null(r.comm_bytes)},
          {"comm_bandwidth_gbyte_per_s", or_null(r.comm_bandwidth_gbyte_per_s)},
          {"attention_tflops", or_null(r.attention_tflops)},
          {"steps", to_json(r.steps)},
          {"tail_ms", or_null(r.tail_ms)}};
}

json to_json(const RecordPlanStep& s) {
  return {{"step", s.step},
          {"sources", s.sources},
          {"unmasked_pairs", s.unmasked_pairs},
          {"recv_bytes", s.recv_bytes},
          {"send_bytes", s.send_bytes},
          {"pairs", {{"full", s.full}, {"partial", s.partial}, {"skip", s.skip}}}};
}

json to_json(const RecordPlanBackward& b) {
  json ranks = json::array();
  for (const RecordPlanBackwardRank& r : b.per_rank) {
    json rank{{"rank", r.rank}, {"recv_bytes", r.recv_bytes}, {"tail_recv_bytes", r.tail_recv_bytes}};
    if (r.steps) {
      json steps = json::array();
      for (const RecordPlanStep& s : *r.steps) steps.push_back(to_json(s));
      rank["steps"] = std::move(steps);
    }
    ranks.push_back(std::move(rank));
  }
  return {{"grads", b.grads},
          {"flops", or_null(b.flops)},
          {"bytes_moved", or_null(b.bytes_moved)},
          {"grad_bytes_per_token", or_null(b.grad_bytes_per_token)},
          {"per_rank", std::move(ranks)}};
}

json to_json(const RecordPlan& p) {
  if (!p.present) return nullptr;
  json j{{"work_imbalance", or_null(p.work_imbalance)},
         {"total_work", or_null(p.total_work)},
         {"flops", or_null(p.flops)},
         {"bytes_moved", or_null(p.bytes_moved)},
         {"kv_bytes_per_token", or_null(p.kv_bytes_per_token)},
         {"per_rank", nullptr}};
  if (p.per_rank) {
    json ranks = json::array();
    for (const RecordPlanRank& r : *p.per_rank) {
      json segments = json::array();
      for (const auto& s : r.segments) segments.push_back(s);
      json rank{{"rank", r.rank},          {"tokens", r.tokens},
                {"segments", segments},    {"unmasked_pairs", r.unmasked_pairs},
                {"work", or_null(r.work)}, {"recv_bytes", r.recv_bytes}};
      if (r.steps) {
        json steps = json::array();
        for (const RecordPlanStep& s : *r.steps) steps.push_back(to_json(s));
        rank["steps"] = std::move(steps);
      }
      ranks.push_back(std::move(rank));
    }
    j["per_rank"] = std::move(ranks);
  }
  if (p.forward_flops) j["forward_flops"] = *p.forward_flops;
  if (p.backward) j["backward"] = to_json(*p.backward);
  return j;
}

json to_json(const std::optional<RecordTimeline>& tl) {
  if (!tl) return nullptr;
  json intervals = json::array();
  for (const RecordInterval& iv : tl->intervals) {
    json x{{"rank", iv.rank},          {"kind", iv.kind},   {"lane", iv.lane},         {"name", iv.name},
           {"step", or_null(iv.step)}, {"bytes", iv.bytes}, {"begin_ms", iv.begin_ms}, {"end_ms", iv.end_ms}};
    if (iv.phase != 0) x["phase"] = iv.phase;  // the backward's; a forward's interval stays as before
    intervals.push_back(std::move(x));
  }
  return {{"clock", tl->clock},
          {"window_ms", or_null(tl->window_ms)},
          {"truncated", tl->truncated},
          {"intervals", std::move(intervals)}};
}

json to_json(const std::optional<RecordModel>& m) {
  if (!m) return nullptr;
  json j{{"kind", m->kind},
         {"basis", m->basis},
         {"pass_ms", or_null(m->pass_ms)},
         {"measured_pass_ms", or_null(m->measured_pass_ms)},
         {"measured_over_model", or_null(m->measured_over_model)},
         {"compute_critical_path_ms", or_null(m->compute_critical_path_ms)},
         {"exposed_comm_ms_mean", or_null(m->exposed_comm_ms_mean)},
         {"exposed_comm_ms_max", or_null(m->exposed_comm_ms_max)},
         {"overlap_fraction", or_null(m->overlap_fraction)},
         {"idle_ms_max", or_null(m->idle_ms_max)}};
  if (m->timeline) j["timeline"] = to_json(m->timeline);
  // An older model's numbers, back at their path ("memory.gb_per_device" under "memory").
  for (const auto& [path, value] : m->other_numbers) {
    std::string pointer = "/" + path;
    for (char& ch : pointer)
      if (ch == '.') ch = '/';
    j[json::json_pointer(pointer)] = value;
  }
  return j;
}

json to_json(const std::optional<RecordCupti>& c) {
  if (!c) return nullptr;
  if (!c->error.empty()) return {{"error", c->error}};
  return {{"traced_pass_ms", or_null(c->traced_pass_ms)},
          {"clean_median_ms", or_null(c->clean_median_ms)},
          {"overhead_pct", or_null(c->overhead_pct)},
          {"window_ms", or_null(c->window_ms)},
          {"activity_ms", or_null(c->activity_ms)},
          {"dropped_records", or_null(c->dropped_records)},
          {"ignored_records", or_null(c->ignored_records)},
          {"unattributed_records", or_null(c->unattributed_records)},
          {"intervals", or_null(c->intervals)},
          {"intervals_by_node", or_null(c->intervals_by_node)},
          {"metrics", to_json(c->metrics)}};
}

json to_json(const std::optional<std::vector<RecordGpuDevice>>& devices) {
  if (!devices) return nullptr;
  json out = json::array();
  for (const RecordGpuDevice& d : *devices) out.push_back(to_json(d));
  return out;
}

}  // namespace

json to_json(const RecordConfig& c) {
  json j{{"id", c.id},
         {"seq", c.seq},
         {"cp", c.cp},
         {"split", c.split},
         {"variant", c.variant},
         {"heads", c.heads},
         {"kv_heads", c.kv_heads},
         {"head_dim", c.head_dim},
         {"causal", c.causal},
         {"dtype", c.dtype},
         {"backend", c.backend},
         {"transport", c.transport},
         {"seed", or_null(c.seed)},
         {"repeats", or_null(c.repeats)},
         {"warmup", or_null(c.warmup)},
         {"link_gbps", or_null(c.link_gbps)},
         {"kernel", c.kernel},
         {"phase", c.phase}};
  // dkv only where it changes what ran (a backward of a rotating variant), as the id says.
  if (!c.dkv.empty()) j["dkv"] = c.dkv;
  // ulysses_degree only for the variants that exchange heads.
  if (c.ulysses_degree) j["ulysses_degree"] = *c.ulysses_degree;
  // Packed documents only where there are any, as the id says (2.12.0).
  if (!c.document_lengths.empty()) {
    j["documents"] = c.documents;
    j["document_lengths"] = c.document_lengths;
    j["padding_tokens"] = or_null(c.padding_tokens);
  }
  return j;
}

json to_json(const RecordMetrics& m) {
  if (!m.present) return nullptr;
  json j{{"window_ms", or_null(m.window_ms)},
         {"rank_count", or_null(m.rank_count)},
         {"comm_time_ms", or_null(m.comm_time_ms)},
         {"comm_in_flight_ms", or_null(m.comm_in_flight_ms)},
         {"comm_basis", or_null(m.comm_basis)},
         {"compute_time_ms", or_null(m.compute_time_ms)},
         {"memory_time_ms", or_null(m.memory_time_ms)},
         {"overlap_time_ms", or_null(m.overlap_time_ms)},
         {"overlap_fraction", or_null(m.overlap_fraction)},
         {"exposed_comm_ms", or_null(m.exposed_comm_ms)},
         {"exposed_comm_ms_max", or_null(m.exposed_comm_ms_max)},
         {"imbalance", or_null(m.imbalance)},
         {"imbalance_basis", m.imbalance_basis},
         {"work_imbalance", or_null(m.work_imbalance)},
         {"step_times", to_json(m.step_times)},
         {"critical_path_ms", or_null(m.critical_path_ms)},
         {"pass_time_ms", or_null(m.pass_time_ms)},
         {"attention_tflops", or_null(m.attention_tflops)},
         {"attention_tflops_gpus", or_null(m.attention_tflops_gpus)},
         {"attention_tflops_aggregate", or_null(m.attention_tflops_aggregate)},
         {"attention_tflops_slowest_rank", or_null(m.attention_tflops_slowest_rank)},
         {"slowest_rank", or_null(m.slowest_rank)},
         {"comm_bytes", or_null(m.comm_bytes)},
         {"comm_bandwidth_gbyte_per_s", or_null(m.comm_bandwidth_gbyte_per_s)},
         {"busy_time_ms", or_null(m.busy_time_ms)},
         {"launch_overhead_ms", or_null(m.launch_overhead_ms)},
         {"eager_minus_graph_ms", or_null(m.eager_minus_graph_ms)},
         {"per_rank", nullptr}};
  if (m.per_rank) {
    json ranks = json::array();
    for (const RecordRankMetrics& r : *m.per_rank) ranks.push_back(to_json(r));
    j["per_rank"] = std::move(ranks);
  }
  if (m.timeline_pass_ms) j["timeline_pass_ms"] = *m.timeline_pass_ms;
  if (m.exposed_comm_ms_mean) j["exposed_comm_ms_mean"] = *m.exposed_comm_ms_mean;
  return j;
}

json to_json(const RecordGpuDevice& d) {
  json j;
  if (d.unavailable)
    j = {{"unavailable", *d.unavailable}};
  else
    j = {{"temperature_c", or_null(d.temperature_c)},
         {"power_w", or_null(d.power_w)},
         {"power_limit_w", or_null(d.power_limit_w)},
         {"sm_clock_mhz", or_null(d.sm_clock_mhz)},
         {"clock_event_reasons", or_null(d.clock_event_reasons)},
         {"thermal_or_power_limited", or_null(d.thermal_or_power_limited)},
         {"mig_mode", or_null(d.mig_mode)}};
  if (d.pci_bus_id) j["pci_bus_id"] = *d.pci_bus_id;
  return j;
}

json to_json(const RecordSmClock& c) {
  json mhz = json::array();
  for (const auto& m : c.samples_mhz) mhz.push_back(or_null(m));
  return {{"method", c.method},
          {"nominal_mhz", or_null(c.nominal_mhz)},
          {"threshold_pct", or_null(c.threshold_pct)},
          {"threshold_mhz", or_null(c.threshold_mhz)},
          {"recovery_ms", or_null(c.recovery_ms)},
          {"samples_ms", c.samples_ms},
          {"samples_mhz", std::move(mhz)},
          {"dropped", c.dropped},
          {"dropped_count", or_null(c.dropped_count)},
          {"taken", or_null(c.taken)}};
}

json to_json(const RunRecord& r) {
  json j{{"schema_version", kResultsSchemaVersion},
         {"config", to_json(r.config)},
         {"status", to_string(r.status)},
         {"reason", or_null(r.reason)},
         {"correctness", r.correctness ? to_json(*r.correctness) : json(nullptr)},
         {"timing", to_json(r.timing)},
         {"plan", to_json(r.plan)},
         {"metrics", to_json(r.metrics)},
         {"timeline", to_json(r.timeline)},
         {"model", to_json(r.model)},
         {"cupti", to_json(r.cupti)}};
  if (r.kernel_choice) j["kernel_choice"] = to_json(*r.kernel_choice);
  if (r.metrics_bwd) {
    json phases = json::object();
    if (r.metrics_fwd) phases["fwd"] = to_json(*r.metrics_fwd);
    phases["bwd"] = to_json(*r.metrics_bwd);
    j["phase_metrics"] = std::move(phases);
  }
  if (!r.trace_error.empty()) j["trace_error"] = r.trace_error;
  if (!r.alias_of.empty()) j["alias_of"] = r.alias_of;
  if (r.gpu_state) j["gpu_state"] = {{"start", to_json(r.gpu_state->start)}, {"end", to_json(r.gpu_state->end)}};
  if (r.sm_clock) j["sm_clock"] = to_json(*r.sm_clock);
  if (!r.placement.empty()) {
    json& places = j["placement"] = json::array();
    for (const auto& p : r.placement) places.push_back({{"rank", p.rank}, {"host", p.host}, {"device", p.device}});
  }
  return j;
}

}  // namespace rb::reports
