// The parts of a result record from the sweep's types.
#include "bench/sweep/result_record.hpp"

#include <cmath>

#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"
#include "bench/sweep/program_costs.hpp"
#include "model/op_simulator.hpp"

namespace rb::bench {

std::vector<reports::RecordPlacement> placement_record(const std::vector<std::string>& rank_devices) {
  std::vector<reports::RecordPlacement> out;
  const ring::World* w = world();
  const std::string here = this_hostname();
  for (std::size_t r = 0; r < rank_devices.size(); ++r) {
    std::string host = w && r < w->hosts().size() ? w->hosts()[r] : here;
    out.push_back({static_cast<std::int64_t>(r), std::move(host), rank_devices[r]});
  }
  return out;
}

namespace {

// A rank's steps, forward or backward, as the record lists them: the mask counts of each step's
// block pairs beside what it moves.
std::vector<reports::RecordPlanStep> step_records(const std::vector<ring::StepPlan>& steps) {
  std::vector<reports::RecordPlanStep> out;
  for (const auto& st : steps) {
    std::int64_t n[3] = {0, 0, 0};
    for (const auto& p : st.pairs) ++n[static_cast<int>(p.mask)];
    out.push_back({.step = st.step,
                   .sources = {st.sources.begin(), st.sources.end()},
                   .unmasked_pairs = st.unmasked,
                   .recv_bytes = st.recv_bytes,
                   .send_bytes = st.send_bytes,
                   .full = n[0],
                   .partial = n[1],
                   .skip = n[2]});
  }
  return out;
}

}  // namespace

reports::RecordPlan plan_record(const ring::Plan& plan) {
  reports::RecordPlan out;
  out.present = true;
  out.work_imbalance = plan.work_imbalance();
  out.total_work = plan.total_work();
  const Phase phase = plan.config.phase;
  out.flops = ((times_forward(phase) ? 1.0 : 0.0) + (times_backward(phase) ? ring::Plan::kBackwardFlopsFactor : 0.0)) *
              plan.flops();
  out.bytes_moved = plan.bytes_moved();
  out.kv_bytes_per_token = plan.kv_bytes_per_token;
  out.per_rank.emplace();
  const bool with_steps = plan.config.cp <= 64;  // keep large-c plans readable; totals are always there
  for (const auto& rp : plan.ranks) {
    reports::RecordPlanRank r{.rank = rp.rank,
                              .tokens = rp.tokens,
                              .segments = {},
                              .unmasked_pairs = rp.unmasked,
                              .work = plan.work(rp.rank),
                              .recv_bytes = rp.recv_bytes,
                              .steps = std::nullopt};
    for (const auto& s : rp.segments) r.segments.push_back({s.start, s.stride, s.count});
    if (with_steps) r.steps = step_records(rp.steps);
    out.per_rank->push_back(std::move(r));
  }
  if (plan.backward) {
    out.forward_flops = plan.flops();
    reports::RecordPlanBackward b;
    b.grads = to_string(plan.backward->grads);
    b.flops = plan.backward_flops();
    b.bytes_moved = plan.backward_bytes_moved();
    b.grad_bytes_per_token = plan.grad_bytes_per_token;
    for (const auto& rp : plan.ranks) {
      reports::RecordPlanBackwardRank r{.rank = rp.rank,
                                        .recv_bytes = rp.backward.recv_bytes,
                                        .tail_recv_bytes = rp.backward.tail_recv_bytes,
                                        .steps = std::nullopt};
      if (with_steps) r.steps = step_records(rp.backward.steps);
      b.per_rank.push_back(std::move(r));
    }
    out.backward = std::move(b);
  }
  return out;
}

reports::RecordCorrectness correctness_record(const ring::Correctness& c,
                                              const std::optional<ring::GradientCorrectness>& gradients) {
  reports::RecordCorrectness out{.checked = true,
                                 .rows_checked = c.rows_checked,
                                 .over_tolerance = c.over_tolerance,
                                 .all_rows = c.all_rows,
                                 .passed = c.passed(),
                                 .max_abs_err = c.max_abs_err,
                                 .rel_l2_err = c.rel_l2_err,
                                 .tolerance = c.tolerance,
                                 .tolerance_basis = c.tolerance_basis,
                                 .gradients = std::nullopt};
  if (gradients) {
    // A NaN error is written as null, as the output's is.
    auto finite = [](double x) { return std::isnan(x) ? std::optional<double>() : std::optional<double>(x); };
    auto one = [&](const ring::Correctness& g) {
      return reports::RecordGradientCheck{.rows_checked = g.rows_checked,
                                          .over_tolerance = g.over_tolerance,
                                          .all_rows = g.all_rows,
                                          .passed = g.passed(),
                                          .max_abs_err = finite(g.max_abs_err),
                                          .rel_l2_err = finite(g.rel_l2_err)};
    };
    reports::RecordGradients g{.tolerance = gradients->dq.tolerance,
                               .tolerance_basis = gradients->dq.tolerance_basis,
                               .dq = one(gradients->dq),
                               .dk = std::nullopt,
                               .dv = std::nullopt,
                               .dkv_unchecked = gradients->dkv_unchecked.value_or(""),
                               .passed = gradients->passed()};
    if (!gradients->dkv_unchecked) {
      g.dk = one(gradients->dk);
      g.dv = one(gradients->dv);
    }
    out.gradients = std::move(g);
  }
  return out;
}

reports::RunRecord result_record(const Config& cfg, RunStatus status, const std::string& reason) {
  reports::RunRecord rec;
  rec.config = reports::record_config(cfg);
  rec.status = status;
  rec.reason = reason;
  return rec;
}
reports::RunRecord skipped_record(const Config& cfg, const std::string& reason) {
  return result_record(cfg, RunStatus::skipped, reason);
}
reports::RunRecord failed_record(const Config& cfg, const std::string& reason) {
  return result_record(cfg, RunStatus::failed, reason);
}
reports::RunRecord with_failure(reports::RunRecord rec, const std::string& reason) {
  rec.status = RunStatus::failed;
  rec.reason = reason;
  return rec;
}

// Capped so a results file of hundreds of large-c configurations stays small; `truncated` says when
// intervals were left out.
namespace {

reports::RecordTimeline capped_timeline(const Timeline& tl, std::string clock) {
  constexpr std::size_t kMaxIntervals = 4096;
  reports::RecordTimeline out;
  out.clock = std::move(clock);
  out.window_ms = static_cast<double>(tl.window_end_ns - tl.window_begin_ns) / 1e6;
  out.truncated = tl.intervals.size() > kMaxIntervals;
  for (std::size_t i = 0; i < tl.intervals.size() && i < kMaxIntervals; ++i) {
    const auto& iv = tl.intervals[i];
    out.intervals.push_back({.rank = iv.rank,
                             .step = iv.step,
                             .kind = std::string(to_string(iv.kind)),
                             .lane = iv.lane,
                             .name = iv.name,
                             .bytes = iv.bytes,
                             .begin_ms = static_cast<double>(iv.begin_ns) / 1e6,
                             .end_ms = static_cast<double>(iv.end_ns) / 1e6,
                             .phase = iv.phase});
  }
  return out;
}

}  // namespace

reports::RecordTimeline timeline_record(const Timeline& tl) {
  return capped_timeline(tl, "steady_clock, relative to the pass start");
}

// The program simulator fed with this pass's own op times (bench/sweep/program_costs.hpp): every
// op of the timed parts, forward and backward, transfers and all-to-alls, ordered as the program
// orders them. If the executor schedules as its program says (double buffering, rendezvous, the
// dK/dV designs' waits), the simulated pass matches the measured one; the ratio shows scheduling
// overhead (thread wake-ups, copies contending with compute, launch gaps) that the model leaves out.
reports::RecordModel simulator_check(const ring::Plan& plan, const ring::PassRecord& pass) {
  std::vector<model::RankOps> ops = program_sim_ops(plan);
  (void)cost_from_timeline(ops, pass.timeline);
  const model::OpSimulation sim = model::simulate_ops(ops, {.keep_timeline = true});
  const double measured_ms = static_cast<double>(pass.wall_ns) / 1e6;
  reports::RecordModel out;
  out.kind = "program_simulator";
  out.basis = "the median pass's measured op times, rescheduled as its step program orders them";
  out.pass_ms = sim.pass_s * 1e3;
  out.measured_pass_ms = measured_ms;
  if (sim.pass_s > 0) out.measured_over_model = measured_ms / (sim.pass_s * 1e3);
  out.compute_critical_path_ms = sim.pass_without_comm_s * 1e3;
  out.exposed_comm_ms_mean = sim.exposed_comm_mean_s * 1e3;
  out.exposed_comm_ms_max = sim.exposed_comm_max_s * 1e3;
  out.overlap_fraction = sim.overlap_fraction;
  out.idle_ms_max = sim.idle_max_s * 1e3;
  out.timeline = capped_timeline(sim.timeline,
                                 "program simulator: the median pass's op times, scheduled as its "
                                 "step program orders them, relative to the pass start");
  return out;
}

}  // namespace rb::bench
