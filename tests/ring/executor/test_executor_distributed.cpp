// The distributed half of the CPU executor, with threads standing in for processes
// (thread_group.hpp): each member hosts one rank, and together they must produce exactly the local
// executor's output, one shared timeline, one pass time, and fail together rather than hang.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "common/scheme_table.hpp"
#include "ring/executor/executor.hpp"
#include "ring/transport/transport_local.hpp"
#include "tests/ring/exchange_cases.hpp"
#include "tests/ring/executor/executor_compare.hpp"
#include "thread_group.hpp"

namespace rb::ring {
namespace {

using testing::SharedTransport;
using testing::ThreadGroup;
using testing::ThreadGroupState;

struct MemberResult {
  std::vector<double> out;
  PassRecord pass;
};

// Runs `plan` with one member per rank; member r's steady clock pretends to be r µs ahead.
std::vector<MemberResult> run_members(const Plan& plan) {
  const int c = plan.config.cp;
  LocalTransport transport(c, 0);
  ThreadGroupState state(c);
  std::vector<MemberResult> results(static_cast<std::size_t>(c));
  std::vector<std::thread> members;
  for (int r = 0; r < c; ++r)
    members.emplace_back([&, r] {
      ThreadGroup group(state, r, c, 1000LL * r);
      auto exec = make_cpu_executor(plan, {}, group, std::make_unique<SharedTransport>(transport));
      (void)exec->run_pass(false);
      results[static_cast<std::size_t>(r)].pass = exec->run_pass(true);
      results[static_cast<std::size_t>(r)].out = exec->output_rows(all_positions(plan.config.seq));
    });
  for (auto& m : members) m.join();
  return results;
}

TEST(ExecutorDistributed, MembersTogetherEqualTheLocalExecutorBitForBit) {
  for (int c : {2, 3, 4})
    for (auto split : {Split::contiguous, Split::zigzag, Split::striped})
      for (const Variant variant : every_variant()) {
        Config cfg;
        cfg.cp = c;
        cfg.seq = 2LL * c * 5;
        cfg.heads = 4;
        cfg.kv_heads = 2;
        cfg.head_dim = 8;
        cfg.split = split;
        cfg.variant = variant;
        cfg.dtype = DType::float64;
        for (const Config& x : testing::exchange_cases(cfg)) {
          SCOPED_TRACE(x.label());
          const Plan plan = make_plan(x);
          auto local = make_cpu_executor(plan);
          (void)local->run_pass(false);
          const auto expected = local->output_rows(all_positions(cfg.seq));
          const auto members = run_members(plan);
          for (int r = 0; r < c; ++r) {
            const auto& m = members[static_cast<std::size_t>(r)];
            EXPECT_EQ(m.out, expected) << "member " << r;
            // One pass time (the slowest rank's) and one timeline, the same on every member.
            EXPECT_EQ(m.pass.wall_ns, members[0].pass.wall_ns);
            ASSERT_EQ(m.pass.timeline.intervals.size(), members[0].pass.timeline.intervals.size());
            std::vector<bool> seen(static_cast<std::size_t>(c), false);
            for (const auto& iv : m.pass.timeline.intervals) {
              seen[static_cast<std::size_t>(iv.rank)] = true;
              EXPECT_GE(iv.begin_ns, 0);
              EXPECT_LE(iv.begin_ns, iv.end_ns);
              EXPECT_LE(iv.end_ns, m.pass.timeline.window_end_ns);
            }
            for (int k = 0; k < c; ++k) EXPECT_TRUE(seen[static_cast<std::size_t>(k)]) << "rank " << k << " missing";
          }
        }
      }
}

TEST(ExecutorDistributed, AFailingMemberStopsEveryMemberInsteadOfHanging) {
  Config cfg;
  cfg.cp = 3;
  cfg.seq = 30;
  cfg.heads = 2;
  cfg.kv_heads = 1;
  cfg.head_dim = 8;
  cfg.dtype = DType::float64;
  const Plan plan = make_plan(cfg);
  LocalTransport transport(3, 0);
  ThreadGroupState state(3);
  std::vector<std::future<std::string>> outcomes;
  for (int r = 0; r < 3; ++r)
    outcomes.push_back(std::async(std::launch::async, [&, r]() -> std::string {
      ThreadGroup group(state, r, 3);
      CpuOptions opts;
      opts.fault = InjectedFault::throw_in_pass;  // only the member hosting rank 0 throws
      try {
        auto exec = make_cpu_executor(plan, opts, group, std::make_unique<SharedTransport>(transport));
        (void)exec->run_pass(false);
      } catch (const std::exception& e) {
        return e.what();
      }
      return "";
    }));
  for (int r = 0; r < 3; ++r) {
    ASSERT_EQ(outcomes[static_cast<std::size_t>(r)].wait_for(std::chrono::seconds(30)), std::future_status::ready)
        << "member " << r << " hung";
    const std::string why = outcomes[static_cast<std::size_t>(r)].get();
    EXPECT_FALSE(why.empty()) << "member " << r << " finished a pass its peer failed";
    if (r == 0) {
      EXPECT_NE(why.find("injected fault"), std::string::npos) << why;
    }
  }
}

}  // namespace
}  // namespace rb::ring
