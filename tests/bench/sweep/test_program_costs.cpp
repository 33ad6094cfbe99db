// The step program as the program simulator's ops (bench/sweep/program_costs.hpp): over a forward,
// the program simulator and the ring simulator (its closed form) give the same pass for every
// variant, split and c, random op times; every pass the tests hold programs of simulates (the
// backward designs, the head exchange, documents) and a recorded timeline costs its ops; and the
// record's model reschedules a real CPU pass, forward and backward.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include <fmt/format.h>

#include "bench/sweep/program_costs.hpp"
#include "bench/sweep/result_record.hpp"
#include "common/scheme_table.hpp"
#include "model/ring_simulator.hpp"
#include "model/step_table.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/plan.hpp"
#include "tests/ring/documents_fixture.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::bench {
namespace {

Config small(int c, Variant v, Split s) {
  Config cfg;
  cfg.cp = c;
  cfg.seq = 8LL * c;
  cfg.heads = 8;
  cfg.kv_heads = 2;
  cfg.head_dim = 4;
  cfg.variant = v;
  cfg.split = s;
  cfg.dtype = DType::float64;
  return cfg;
}

std::vector<Config> forward_cases() {
  std::vector<Config> out;
  for (const int c : {1, 2, 3, 4, 8})
    for (const Variant v : every_variant())
      for (const Split s : every_split()) {
        const Config cfg = small(c, v, s);
        for (const Config& x : ring::testing::exchange_cases(cfg)) out.push_back(x);
        if (v != Variant::ulysses && v != Variant::hybrid) out.push_back(cfg);
      }
  return out;
}

// Random op times for a forward, one value per (member, step) for its attention, merge and the
// transfer that feeds it (every lane's piece alike, every rank of a group alike: what the ring
// simulator's table can say), and the same in the ring simulator's table. With `merges` false a
// step's merge costs nothing: the closed form counts it in the step, so a transfer waits for it,
// where the program's transfer waits only for the attention that read the buffer it fills.
model::StepTable random_times(const ring::Plan& plan, std::vector<model::RankOps>& ops, std::mt19937& rng,
                              bool merges) {
  std::uniform_real_distribution<double> u(0.1, 2.0);
  const HeadExchange& x = plan.exchange;
  const int members = x.active() ? x.groups : plan.config.cp;
  const int steps = plan.schedule.gathered ? 1 : members;
  model::StepTable t(members, steps, plan.config.variant, plan.schedule);
  std::vector<double> attend(t.compute_s.size()), merge(t.compute_s.size()), recv(t.transfer_s.size());
  for (auto* v : {&attend, &merge, &recv})
    for (double& s : *v) s = u(rng);
  const double in = u(rng), out = u(rng);
  for (int r = 0; r < plan.config.cp; ++r) {
    const int m = x.active() ? x.group_of(r) : r;
    for (model::SimOp& op : ops[static_cast<std::size_t>(r)].ops) {
      const auto at = static_cast<std::size_t>(m) * steps + static_cast<std::size_t>(std::max(op.step, 0));
      if (op.name == "attention") op.seconds = attend[at];
      if (op.name == "merge") op.seconds = merges ? merge[at] : 0.0;
      if (op.name == "kv_recv" || op.name == "kv_allgather") op.seconds = recv[at];
      if (op.name == "qkv_alltoall") op.seconds = in;
      if (op.name == "o_alltoall") op.seconds = out;
    }
  }
  // The table's compute is what ran at the step (a skipped step: nothing), its transfer the copy.
  for (int m = 0; m < members; ++m) {
    const int r = x.active() ? x.rank_of(m, 0) : m;
    for (const model::SimOp& op : ops[static_cast<std::size_t>(r)].ops) {
      if (op.kind == IntervalKind::compute) t.compute(m, op.step) += op.seconds;
      if (op.name == "kv_recv" || op.name == "kv_allgather") t.transfer(m, op.step) = op.seconds;
    }
  }
  if (x.active()) t.exchange_in_s = in, t.exchange_out_s = out;
  return t;
}

TEST(ProgramCosts, AForwardSimulatesAsTheRingSimulatorsClosedForm) {
  std::mt19937 rng(7);
  int compared = 0;
  for (const Config& cfg : forward_cases()) {
    SCOPED_TRACE(cfg.label());
    const ring::Plan plan = ring::make_plan(cfg);
    std::vector<model::RankOps> ops = program_sim_ops(plan);
    ASSERT_EQ(ops.size(), static_cast<std::size_t>(cfg.cp));
    std::vector<model::RankOps> merging = ops;
    const model::StepTable t = random_times(plan, ops, rng, false);
    const model::OpSimulation a = model::simulate_ops(ops);
    const model::Simulation b = model::simulate(t);
    // With merges that cost, the program's transfers may start before them: never later than the
    // closed form. So with two lanes: the closed form starts every lane's copy together, once all
    // their senders are ready, where the program's lanes are threads of their own.
    const model::StepTable tm = random_times(plan, merging, rng, true);
    EXPECT_LE(model::simulate_ops(merging).pass_s, model::simulate(tm).pass_s + 1e-9);
    if (plan.schedule.lanes.size() > 1) {
      EXPECT_LE(a.pass_s, b.pass_s + 1e-9);
      continue;
    }
    EXPECT_NEAR(a.pass_s, b.pass_s, 1e-9);
    EXPECT_NEAR(a.pass_without_comm_s, b.pass_without_comm_s, 1e-9);
    EXPECT_NEAR(a.exposed_comm_max_s, b.exposed_comm_max_s, 1e-9);
    EXPECT_NEAR(a.idle_max_s, b.idle_max_s, 1e-9);
    for (int r = 0; r < cfg.cp; ++r) {
      const int m = plan.exchange.active() ? plan.exchange.group_of(r) : r;
      EXPECT_NEAR(a.per_rank[r].finish_s, b.per_rank[m].finish_s, 1e-9) << "rank " << r;
      EXPECT_NEAR(a.per_rank[r].overlap_s, b.per_rank[m].overlap_s, 1e-9) << "rank " << r;
    }
    ++compared;
  }
  EXPECT_GT(compared, 100);
}

TEST(ProgramCosts, EveryPassSimulatesAndCostsFromItsOwnTimeline) {
  // The backward designs, the head exchange and documents: the simulated pass, as a timeline, costs
  // the same ops back to the same times, and reschedules to the same pass.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.1, 2.0);
  int simulated = 0;
  for (const int c : {1, 2, 3, 4, 8})
    for (const Variant v : every_variant())
      for (const Dkv dkv : {Dkv::reverse, Dkv::follow})
        for (const Phase ph : {Phase::bwd, Phase::fwd_bwd})
          for (const bool docs : {false, true}) {
            Config cfg = small(c, v, Split::zigzag);
            cfg.phase = ph;
            cfg.dkv = dkv;
            if (docs) cfg = rb::test::with_corner_documents(cfg);
            for (const Config& one : ring::testing::exchange_cases(cfg)) {
              SCOPED_TRACE(one.label());
              const ring::Plan plan = ring::make_plan(one);
              std::vector<model::RankOps> ops = program_sim_ops(plan);
              bool forward = false, backward = false;
              for (auto& ro : ops)
                for (model::SimOp& op : ro.ops) {
                  op.seconds = op.kind == IntervalKind::other || op.name.empty() ? 0.0 : u(rng);
                  (op.phase ? backward : forward) = true;
                }
              EXPECT_EQ(forward, times_forward(ph));
              EXPECT_TRUE(backward);
              const model::OpSimulation sim = model::simulate_ops(ops, {.keep_timeline = true});
              EXPECT_GE(sim.pass_s, sim.pass_without_comm_s - 1e-9);
              std::vector<model::RankOps> again = ops;
              EXPECT_EQ(cost_from_timeline(again, sim.timeline), 0);
              for (std::size_t r = 0; r < ops.size(); ++r)
                for (std::size_t i = 0; i < ops[r].ops.size(); ++i)
                  if (ops[r].ops[i].kind != IntervalKind::other && !ops[r].ops[i].name.empty()) {
                    ASSERT_NEAR(again[r].ops[i].seconds, ops[r].ops[i].seconds, 1e-9)
                        << ops[r].ops[i].name << " step " << ops[r].ops[i].step << " lane " << ops[r].ops[i].lane
                        << " rank " << r;
                  }
              EXPECT_NEAR(model::simulate_ops(again).pass_s, sim.pass_s, 1e-6);
              ++simulated;
            }
          }
  EXPECT_GT(simulated, 100);
}

TEST(ProgramCosts, TheRecordsModelReschedulesARealPassForwardAndBackward) {
  // A CPU pass of a reverse ring, timed forward and backward: the model replays every op the
  // timeline holds, so its pass covers the backward too, and no scheduling can make the measured
  // pass shorter than its compute critical path.
  Config cfg = small(4, Variant::ring, Split::zigzag);
  cfg.seq = 64;
  cfg.phase = Phase::fwd_bwd;
  const ring::Plan plan = ring::make_plan(cfg);
  auto ex = ring::make_cpu_executor(plan);
  const ring::PassRecord pass = ex->run_pass(true);
  std::vector<model::RankOps> ops = program_sim_ops(plan);
  EXPECT_EQ(cost_from_timeline(ops, pass.timeline), 0) << "every named op found its interval";
  const reports::RecordModel m = simulator_check(plan, pass);
  EXPECT_EQ(m.kind, "program_simulator");
  ASSERT_TRUE(m.pass_ms && m.compute_critical_path_ms);
  EXPECT_GE(*m.pass_ms, *m.compute_critical_path_ms - 1e-9);
  EXPECT_DOUBLE_EQ(*m.measured_pass_ms, static_cast<double>(pass.wall_ns) / 1e6);
  double backward_ms = 0;
  for (const Interval& iv : pass.timeline.intervals)
    if (iv.phase == 1 && iv.kind == IntervalKind::compute && iv.rank == 0)
      backward_ms += static_cast<double>(iv.end_ns - iv.begin_ns) / 1e6;
  EXPECT_GT(backward_ms, 0);
  EXPECT_GE(*m.pass_ms, backward_ms - 1e-9) << "the model's pass holds rank 0's backward compute";
  // Its timeline is the measured one's intervals (what, where, how many bytes), rescheduled.
  ASSERT_TRUE(m.timeline);
  auto key = [](int rank, const std::string& lane, const std::string& name, std::optional<int> step, int phase,
                std::int64_t bytes) {
    return fmt::format("r{} {} {} s{} p{} {}B", rank, lane, name, step.value_or(-1), phase, bytes);
  };
  std::multiset<std::string> measured, planned;
  for (const reports::RecordInterval& iv : timeline_record(pass.timeline).intervals)
    measured.insert(key(iv.rank, iv.lane, iv.name, iv.step, iv.phase, iv.bytes));
  for (const reports::RecordInterval& iv : m.timeline->intervals)
    planned.insert(key(iv.rank, iv.lane, iv.name, iv.step, iv.phase, iv.bytes));
  EXPECT_EQ(planned, measured);
}

}  // namespace
}  // namespace rb::bench
