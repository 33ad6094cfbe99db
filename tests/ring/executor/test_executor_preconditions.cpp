// What both executors require of a plan and a process group (ring/executor/executor_preconditions.hpp): the
// messages name the executor, the group is checked before the ranks, and the CPU executor refuses
// through them before it allocates or starts anything.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.hpp"
#include "ring/executor/executor.hpp"
#include "ring/executor/executor_preconditions.hpp"
#include "ring/transport/transport_local.hpp"
#include "thread_group.hpp"

namespace rb::ring {
namespace {

using testing::ThreadGroup;
using testing::ThreadGroupState;

Plan plan_of(int c) {
  Config cfg;
  cfg.cp = c;
  cfg.seq = 8LL * c;
  cfg.heads = 2;
  cfg.kv_heads = 1;
  cfg.head_dim = 4;
  cfg.dtype = DType::float64;
  return make_plan(cfg);
}

Plan unequal(int c) {
  Plan p = plan_of(c);
  p.ranks.back().tokens += 1;
  return p;
}

// The message of the rb::Error f throws, or "" where it throws none.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ExecutorPreconditions, EachRefusalNamesTheExecutorAndTheGroupComesFirst) {
  ThreadGroupState state(3);
  ThreadGroup three(state, 1, 3), four(state, 1, 4);
  struct Case {
    std::string name, executor;
    Plan plan;
    const ProcessGroup* group;
    std::string expected;  // "" where it holds
  };
  const std::vector<Case> cases = {
      {"every rank here", "cpu executor", plan_of(4), nullptr, ""},
      {"a process per rank", "cuda executor", plan_of(4), &four, ""},
      {"too few processes", "cpu executor", plan_of(4), &three, "cpu executor: 3 processes for 4 ranks"},
      {"too few processes, cuda", "cuda executor", plan_of(4), &three, "cuda executor: 3 processes for 4 ranks"},
      {"unequal ranks", "cuda executor", unequal(4), nullptr, "cuda executor: ranks must hold equal token counts"},
      {"unequal ranks in a group", "cpu executor", unequal(4), &four,
       "cpu executor: ranks must hold equal token counts"},
      {"both", "cpu executor", unequal(4), &three, "cpu executor: 3 processes for 4 ranks"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(error_of([&] { check_executor_preconditions(c.executor, c.plan, c.group); }), c.expected);
  }
}

TEST(ExecutorPreconditions, AloneEveryRankIsHostedInAGroupItsOwn) {
  EXPECT_EQ(hosted_ring_ranks(1, nullptr), std::vector<int>{0});
  EXPECT_EQ(hosted_ring_ranks(4, nullptr), (std::vector<int>{0, 1, 2, 3}));
  ThreadGroupState state(4);
  for (int r = 0; r < 4; ++r) {
    ThreadGroup g(state, r, 4);
    EXPECT_EQ(hosted_ring_ranks(4, &g), std::vector<int>{r});
  }
}

TEST(ExecutorPreconditions, TheCpuExecutorRefusesThroughThem) {
  EXPECT_EQ(error_of([] { (void)make_cpu_executor(unequal(3)); }), "cpu executor: ranks must hold equal token counts");
  ThreadGroupState state(2);
  ThreadGroup g(state, 0, 2);
  EXPECT_EQ(error_of([&] { (void)make_cpu_executor(plan_of(3), {}, g, std::make_unique<LocalTransport>(3, 0.0)); }),
            "cpu executor: 2 processes for 3 ranks");
}

}  // namespace
}  // namespace rb::ring
