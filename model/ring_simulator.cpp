// The simulator's recurrences. Step j of every rank depends only on iteration j-1 of the comm lanes
// and step j-1 of the compute lanes, so one sweep over j in order settles every time: no event queue,
// and O(c) memory unless the per-step intervals are kept (at c = 1024 those are 32 MB, and fresh
// memory is what costs time here, not the arithmetic).
#include "model/ring_simulator.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"

namespace rb::model {
namespace {

// What one schedule yields: per-rank totals always, every (rank, step) interval when asked.
struct Schedule {
  double pass_s = 0;
  std::vector<double> compute_s, comm_s, overlap_s, finish_s;  // per rank
  std::vector<double> cb, ce, xb, xe;  // [r * steps + j] compute begin/end, copy begin/end; empty unless kept
};

double overlap(double a0, double a1, double b0, double b1) {
  return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

Schedule make_schedule(const StepTable& t, bool with_comm, bool keep_steps) {
  const int c = t.ranks, steps = t.steps;
  Schedule s;
  s.compute_s.assign(c, 0.0);
  s.comm_s.assign(c, 0.0);
  s.overlap_s.assign(c, 0.0);
  s.finish_s.assign(c, 0.0);
  if (keep_steps)
    for (auto* v : {&s.cb, &s.ce, &s.xb, &s.xe}) v->assign(static_cast<std::size_t>(c) * steps, 0.0);
  auto at = [steps](int r, int j) { return static_cast<std::size_t>(r) * steps + j; };

  if (t.schedule.gathered) {
    for (int r = 0; r < c; ++r) {
      const double xe = c > 1 && with_comm ? t.transfer(r, 0) : 0.0;
      const double ce = xe + t.compute(r, 0);
      if (keep_steps) s.xe[r] = xe, s.cb[r] = xe, s.ce[r] = ce;
      s.compute_s[r] = t.compute(r, 0);
      s.comm_s[r] = xe;
      s.finish_s[r] = ce;
      s.pass_s = std::max(s.pass_s, ce);
    }
    return s;
  }

  // Each lane's piece comes from its sender and goes to its receiver (the ring: r-1 and r+1).
  const auto lanes = static_cast<int>(t.schedule.lanes.size());
  std::vector<int> senders, receivers;  // [r * lanes + l]
  for (int r = 0; r < c; ++r)
    for (int l = 0; l < lanes; ++l) {
      senders.push_back(t.schedule.sender(r, l, c));
      receivers.push_back(t.schedule.receiver(r, l, c));
    }
  // Per rank, rolling over j: the compute intervals of steps j-1 and j, the end of the latest comm
  // iteration (when its block is published), readiness for the next iteration, and its copy.
  std::vector<double> pb(c, 0.0), pe(c, 0.0), cb(c, 0.0), ce(c, 0.0), exit(c, 0.0), ready(c, 0.0), xb(c, 0.0),
      xe(c, 0.0);
  for (int j = 0; j < c; ++j) {
    for (int r = 0; r < c; ++r) {
      pb[r] = cb[r];
      pe[r] = ce[r];
      cb[r] = j == 0 ? 0.0 : std::max(pe[r], exit[r]);
      ce[r] = cb[r] + t.compute(r, j);
      s.compute_s[r] += ce[r] - cb[r];
      if (keep_steps) s.cb[at(r, j)] = cb[r], s.ce[at(r, j)] = ce[r];
    }
    if (j + 1 >= c) break;
    // Iteration j receives the block of step j+1 into the buffer that step j-1 read.
    for (int r = 0; r < c; ++r) ready[r] = std::max(exit[r], j >= 2 ? pe[r] : 0.0);
    for (int r = 0; r < c; ++r) {
      xb[r] = ready[r];
      for (int l = 0; l < lanes; ++l) xb[r] = std::max(xb[r], ready[senders[static_cast<std::size_t>(r) * lanes + l]]);
      xe[r] = xb[r] + (with_comm ? t.transfer(r, j + 1) : 0.0);
      s.comm_s[r] += xe[r] - xb[r];
      // The copy starts after step j-2 ended (it waited for that buffer) and ends before step j+1
      // starts (which waits for it), so steps j-1 and j are the only compute it can overlap.
      s.overlap_s[r] += overlap(xb[r], xe[r], cb[r], ce[r]) + (j >= 1 ? overlap(xb[r], xe[r], pb[r], pe[r]) : 0.0);
      if (keep_steps) s.xb[at(r, j + 1)] = xb[r], s.xe[at(r, j + 1)] = xe[r];
    }
    for (int r = 0; r < c; ++r) {
      exit[r] = xe[r];
      for (int l = 0; l < lanes; ++l)
        exit[r] = std::max(exit[r], xe[receivers[static_cast<std::size_t>(r) * lanes + l]]);
    }
  }
  for (int r = 0; r < c; ++r) {
    s.finish_s[r] = ce[r];
    s.pass_s = std::max(s.pass_s, ce[r]);
  }
  return s;
}

}  // namespace

void PassTotals::total() {
  const auto c = static_cast<double>(per_rank.size());
  double comm_sum = 0, overlap_sum = 0;
  exposed_comm_max_s = exposed_comm_mean_s = idle_max_s = idle_mean_s = 0;
  for (RankSimulation& rs : per_rank) {
    rs.exposed_comm_s = rs.comm_s - rs.overlap_s;
    rs.overlap_fraction.reset();
    if (rs.comm_s > 0) rs.overlap_fraction = rs.overlap_s / rs.comm_s;
    rs.idle_s = pass_s - rs.compute_s;
    comm_sum += rs.comm_s;
    overlap_sum += rs.overlap_s;
    exposed_comm_max_s = std::max(exposed_comm_max_s, rs.exposed_comm_s);
    exposed_comm_mean_s += rs.exposed_comm_s / c;
    idle_max_s = std::max(idle_max_s, rs.idle_s);
    idle_mean_s += rs.idle_s / c;
  }
  overlap_fraction.reset();
  if (comm_sum > 0) overlap_fraction = overlap_sum / comm_sum;
}

Simulation simulate(const StepTable& table, SimOptions options) {
  table.check();
  Schedule s = make_schedule(table, true, options.keep_steps);
  // A head exchange's all-to-alls: every rank's schedule starts after the one in and its pass ends
  // after the one out; both are comm with nothing under them.
  const double in = table.exchange_in_s, out = table.exchange_out_s;
  if (in > 0 || out > 0) {
    s.pass_s += in + out;
    for (int r = 0; r < table.ranks; ++r) {
      s.comm_s[r] += in + out;
      s.finish_s[r] += in + out;
    }
    for (auto* v : {&s.cb, &s.ce, &s.xb, &s.xe})
      for (double& t : *v) t += in;
  }
  Simulation sim;
  sim.variant = table.variant;
  sim.gathered = table.schedule.gathered;
  sim.ranks = table.ranks;
  sim.steps = table.steps;
  sim.pass_s = s.pass_s;
  sim.exchange_in_s = in;
  sim.exchange_out_s = out;
  sim.pass_without_comm_s = make_schedule(table, false, false).pass_s;
  sim.per_rank.resize(table.ranks);
  for (int r = 0; r < table.ranks; ++r) {
    RankSimulation& rs = sim.per_rank[r];
    rs.compute_s = s.compute_s[r];
    rs.comm_s = s.comm_s[r];
    rs.overlap_s = s.overlap_s[r];
    rs.finish_s = s.finish_s[r];
  }
  sim.total();
  sim.compute_begin_s = std::move(s.cb);
  sim.compute_end_s = std::move(s.ce);
  sim.comm_begin_s = std::move(s.xb);
  sim.comm_end_s = std::move(s.xe);
  return sim;
}

Timeline to_timeline(const Simulation& sim) {
  const auto n = static_cast<std::size_t>(sim.ranks) * sim.steps;
  if (sim.compute_begin_s.size() != n)
    throw Error("to_timeline: the simulation kept no steps (simulate with SimOptions{.keep_steps = true})");
  Timeline tl;
  auto ns = [](double s) { return static_cast<std::int64_t>(std::llround(s * 1e9)); };
  const char* comm_name = sim.gathered ? "kv_allgather" : "kv_recv";
  // A head exchange's all-to-alls, before the first step and after the last (step -1, as the executor's).
  for (int r = 0; r < sim.ranks; ++r) {
    if (sim.exchange_in_s > 0)
      tl.intervals.push_back(Interval{r, IntervalKind::comm, "comm", "qkv_alltoall", -1, 0, 0, ns(sim.exchange_in_s)});
    if (sim.exchange_out_s > 0)
      tl.intervals.push_back(Interval{r, IntervalKind::comm, "comm", "o_alltoall", -1, 0,
                                      ns(sim.per_rank[r].finish_s - sim.exchange_out_s), ns(sim.per_rank[r].finish_s)});
  }
  for (int r = 0; r < sim.ranks; ++r)
    for (int j = 0; j < sim.steps; ++j) {
      const auto i = static_cast<std::size_t>(r) * sim.steps + j;
      if (sim.comm_end_s[i] > sim.comm_begin_s[i])
        tl.intervals.push_back(Interval{r, IntervalKind::comm, "comm", comm_name, j, 0, ns(sim.comm_begin_s[i]),
                                        ns(sim.comm_end_s[i])});
      tl.intervals.push_back(Interval{r, IntervalKind::compute, "compute", "attention", j, 0,
                                      ns(sim.compute_begin_s[i]), ns(sim.compute_end_s[i])});
    }
  tl.window_begin_ns = 0;
  tl.window_end_ns = ns(sim.pass_s);
  return tl;
}

}  // namespace rb::model
