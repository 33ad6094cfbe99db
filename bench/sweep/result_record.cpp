// Building the parts of a result record.
#include "bench/sweep/result_record.hpp"

#include "model/ring_simulator.hpp"
#include "model/step_table.hpp"
#include "reports/results/config_json.hpp"

namespace rb::bench {

using nlohmann::json;

json plan_to_json(const ring::Plan& plan) {
  json ranks = json::array();
  const bool with_steps = plan.config.cp <= 64;  // keep large-c plans readable; totals are always there
  for (const auto& rp : plan.ranks) {
    json segs = json::array();
    for (const auto& s : rp.segments) segs.push_back({s.start, s.stride, s.count});
    json r{{"rank", rp.rank},
           {"tokens", rp.tokens},
           {"segments", segs},
           {"unmasked_pairs", rp.unmasked},
           {"work", plan.work(rp.rank)},
           {"recv_bytes", rp.recv_bytes}};
    if (with_steps) {
      json steps = json::array();
      for (const auto& st : rp.steps) {
        int n[3] = {0, 0, 0};
        for (const auto& p : st.pairs) ++n[static_cast<int>(p.mask)];
        steps.push_back({{"step", st.step},
                         {"sources", st.sources},
                         {"unmasked_pairs", st.unmasked},
                         {"recv_bytes", st.recv_bytes},
                         {"send_bytes", st.send_bytes},
                         {"pairs", {{"full", n[0]}, {"partial", n[1]}, {"skip", n[2]}}}});
      }
      r["steps"] = steps;
    }
    ranks.push_back(std::move(r));
  }
  return {{"work_imbalance", plan.work_imbalance()},
          {"total_work", plan.total_work()},
          {"flops", plan.flops()},
          {"bytes_moved", plan.bytes_moved()},
          {"kv_bytes_per_token", plan.kv_bytes_per_token},
          {"per_rank", ranks}};
}

json correctness_to_json(const ring::Correctness& c) {
  return {{"checked", true},
          {"rows_checked", c.rows_checked},
          {"all_rows", c.all_rows},
          {"max_abs_err", c.max_abs_err},
          {"rel_l2_err", c.rel_l2_err},
          {"over_tolerance", c.over_tolerance},
          {"tolerance", c.tolerance},
          {"tolerance_basis", c.tolerance_basis},
          {"passed", c.passed()}};
}

json result_record(const Config& cfg, RunStatus status, const std::string& reason) {
  return {{"config", reports::to_json(cfg)},
          {"status", to_string(status)},
          {"reason", reason.empty() ? json(nullptr) : json(reason)},
          {"correctness", nullptr},
          {"timing", nullptr},
          {"plan", nullptr},
          {"metrics", nullptr},
          {"timeline", nullptr},
          {"model", nullptr},
          {"cupti", nullptr}};
}
json skipped_record(const Config& cfg, const std::string& reason) {
  return result_record(cfg, RunStatus::skipped, reason);
}
json failed_record(const Config& cfg, const std::string& reason) {
  return result_record(cfg, RunStatus::failed, reason);
}
json with_failure(json rec, const std::string& reason) {
  rec["status"] = to_string(RunStatus::failed);
  rec["reason"] = reason;
  return rec;
}

// The median pass's intervals, for the report's per-rank timeline. Capped so a results file of
// hundreds of large-c configurations stays small; `truncated` says when intervals were left out.
json timeline_to_json(const Timeline& tl) {
  constexpr std::size_t kMaxIntervals = 4096;
  json ivs = json::array();
  for (std::size_t i = 0; i < tl.intervals.size() && i < kMaxIntervals; ++i) {
    const auto& iv = tl.intervals[i];
    ivs.push_back({{"rank", iv.rank},
                   {"kind", to_string(iv.kind)},
                   {"lane", iv.lane},
                   {"name", iv.name},
                   {"step", iv.step},
                   {"bytes", iv.bytes},
                   {"begin_ms", static_cast<double>(iv.begin_ns) / 1e6},
                   {"end_ms", static_cast<double>(iv.end_ns) / 1e6}});
  }
  return {{"clock", "steady_clock, relative to the pass start"},
          {"window_ms", static_cast<double>(tl.window_end_ns - tl.window_begin_ns) / 1e6},
          {"truncated", tl.intervals.size() > kMaxIntervals},
          {"intervals", ivs}};
}

// The ring simulator fed with this pass's own per-step compute and transfer times: if the executor
// schedules as the model assumes (double buffering, rendezvous, neighbour waits), the simulated
// pass matches the measured one; the ratio shows scheduling overhead (thread wake-ups, copies
// contending with compute) that the model leaves out.
json simulator_check(const ring::Plan& plan, const ring::PassRecord& pass) {
  const auto table = model::step_table_from_timeline(pass.timeline, plan.config.cp, plan.config.variant, plan.schedule);
  const auto sim = model::simulate(table);
  const double measured_ms = static_cast<double>(pass.wall_ns) / 1e6;
  return {{"kind", "ring_simulator"},
          {"basis", "the median pass's measured per-step compute and transfer times, rescheduled by the simulator"},
          {"pass_ms", sim.pass_s * 1e3},
          {"measured_pass_ms", measured_ms},
          {"measured_over_model", sim.pass_s > 0 ? json(measured_ms / (sim.pass_s * 1e3)) : json(nullptr)},
          {"compute_critical_path_ms", sim.pass_without_comm_s * 1e3},
          {"exposed_comm_ms_mean", sim.exposed_comm_mean_s * 1e3},
          {"exposed_comm_ms_max", sim.exposed_comm_max_s * 1e3},
          {"overlap_fraction", sim.overlap_fraction ? json(*sim.overlap_fraction) : json(nullptr)},
          {"idle_ms_max", sim.idle_max_s * 1e3}};
}

}  // namespace rb::bench
