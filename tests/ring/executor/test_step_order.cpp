// The two orderings both executors keep (ring/executor/step_order.hpp), checked against the buffer each step
// reads (ring/executor/rank_buffers.hpp) and the transfers each schedule issues: a transfer waits for the
// last step that read the buffer it overwrites, and a step for the transfer that filled its buffer.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "common/scheme_table.hpp"
#include "ring/executor/rank_buffers.hpp"
#include "ring/executor/step_order.hpp"
#include "ring/plan/plan.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::ring {
namespace {

TEST(StepOrder, ATransferWaitsForTheStepBeforeIt) {
  const std::vector<std::optional<int>> expected = {std::nullopt, std::nullopt, 1, 2, 3, 4};
  for (int j = 0; j < static_cast<int>(expected.size()); ++j)
    EXPECT_EQ(last_reader_of_next_buffer(j), expected[static_cast<std::size_t>(j)]) << "transfer " << j;
}

// The transfer issued during step j fills step j+1's buffer: no earlier step after the one it
// waits for reads that buffer, and the one it waits for does (so the wait is needed and enough).
TEST(StepOrder, TheStepWaitedForIsTheLastToReadTheBufferOverwritten) {
  RankBuffers<std::vector<int>, std::vector<int>> b;
  for (int j = 0; j < 16; ++j) {
    const auto* filled = &b.step_buffer(j + 1);
    std::optional<int> last;
    for (int k = 0; k <= j; ++k)
      if (&b.step_buffer(k) == filled) last = k;
    EXPECT_EQ(last_reader_of_next_buffer(j), last) << "transfer " << j;
  }
}

TEST(StepOrder, AStepWaitsForTheTransferThatBroughtItsKeys) {
  for (const int c0 : {1, 2, 3, 4, 5})
    for (const Variant v : every_variant()) {
      Config base;
      base.cp = c0;
      base.seq = 4LL * c0;
      base.variant = v;
      for (const Config& cfg : testing::exchange_cases(base)) {
        const Plan plan = make_plan(cfg);
        const KvSchedule& sch = plan.schedule;
        const int c = plan.exchange.groups;  // the schedule's members
        SCOPED_TRACE(cfg.label());
        for (int j = 0; j < sch.steps; ++j) {
          const auto t = transfer_read_by_step(sch, j, c);
          if (sch.gathered) {
            EXPECT_EQ(t, c > 1 ? std::optional(0) : std::nullopt) << "step " << j;
          } else {
            EXPECT_EQ(t, j > 0 ? std::optional(j - 1) : std::nullopt) << "step " << j;
          }
          // Whatever is waited for is a transfer the schedule issues.
          if (t) {
            EXPECT_TRUE(sch.moves(*t, c)) << "step " << j;
          }
        }
        // And every transfer issued is waited for by some step.
        for (int t = 0; sch.moves(t, c); ++t) {
          bool read = false;
          for (int j = 0; j < sch.steps; ++j) read = read || transfer_read_by_step(sch, j, c) == t;
          EXPECT_TRUE(read) << "transfer " << t;
        }
      }
    }
}

}  // namespace
}  // namespace rb::ring
