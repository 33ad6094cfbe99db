// A configuration's life from plan to record: when it is due, how each step's entry closes it or
// keeps it open, and that a closed configuration is never due again.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "bench/sweep/configuration_run.hpp"
#include "common/run_status.hpp"
#include "reports/results/run_record_writer.hpp"
#include "tests/bench/sweep/tiny_sweep.hpp"

namespace rb::bench {
namespace {

const auto tiny_run = testing::tiny_config;

RunOptions two_rounds() {
  RunOptions o;
  o.rounds = 2;
  o.out_dir = std::filesystem::temp_directory_path() / "ringbench_configuration_run";
  return o;
}

// A configuration of two rounds, planned, with its first round run and recorded.
struct AfterFirstRound {
  RunOptions opts = two_rounds();
  ConfigurationRun run{tiny_run(), 0, ""};
  ReferenceCache refs;
  RecordEntry first;
  AfterFirstRound() {
    EXPECT_EQ(run.plan(opts, memory_budget(opts), SweepStop{}), "");
    EXPECT_EQ(run.run_round(0, refs).failure, "");
    first = run.after_round(0, RoundResult{}, SweepStop{});
  }
};

TEST(ConfigurationRun, RunsItsRoundsInTurnAndClosesAfterTheLast) {
  {
    ConfigurationRun fresh(tiny_run(), 0, "");
    EXPECT_TRUE(fresh.due(0));
    EXPECT_FALSE(fresh.due(1));
  }
  AfterFirstRound f;
  ConfigurationRun& run = f.run;
  const RecordEntry& first = f.first;
  EXPECT_EQ(run.planned_rounds(), 2);
  EXPECT_FALSE(first.closed);
  EXPECT_TRUE(first.append);  // what is measured so far survives a kill
  EXPECT_EQ(first.round, 0);
  EXPECT_EQ(first.rounds, 2);
  EXPECT_EQ(first.record.timing.rounds, 1);
  EXPECT_EQ(first.detail.rfind("median ", 0), 0U) << first.detail;
  EXPECT_FALSE(run.due(0));
  EXPECT_TRUE(run.due(1));

  ASSERT_EQ(run.run_round(1, f.refs).failure, "");
  const RecordEntry last = run.after_round(1, RoundResult{}, SweepStop{});
  ASSERT_TRUE(last.closed);
  EXPECT_EQ(*last.closed, RunStatus::ok);
  EXPECT_EQ(last.record.timing.count, 4);
  EXPECT_FALSE(run.open());
  EXPECT_FALSE(run.due(1));
  EXPECT_FALSE(run.due(2));
  EXPECT_EQ(run.final_status(), RunStatus::ok);
}

TEST(ConfigurationRun, AFailureInALaterRoundKeepsTheEarlierTiming) {
  AfterFirstRound f;
  ConfigurationRun& run = f.run;
  const RecordEntry failed = run.after_round(1, RoundResult{"rank 1: injected", false, 0}, SweepStop{});
  ASSERT_TRUE(failed.closed);
  EXPECT_EQ(*failed.closed, RunStatus::failed);
  EXPECT_EQ(failed.detail, "round 2 of 2: rank 1: injected");
  EXPECT_EQ(failed.record.status, RunStatus::failed);
  EXPECT_EQ(failed.record.reason, failed.detail);
  EXPECT_EQ(failed.record.timing.rounds, 1);
  EXPECT_FALSE(run.due(1));
  EXPECT_EQ(run.final_status(), RunStatus::failed);
}

TEST(ConfigurationRun, AFailureInTheFirstRoundLeavesNoTiming) {
  const RunOptions opts = two_rounds();
  ConfigurationRun run(tiny_run(), 0, "");
  ASSERT_EQ(run.plan(opts, memory_budget(opts), SweepStop{}), "");
  const RecordEntry failed = run.after_round(0, RoundResult{"boom", false, 0}, SweepStop{});
  ASSERT_TRUE(failed.closed);
  EXPECT_EQ(failed.detail, "boom");
  EXPECT_FALSE(failed.record.timing.present);
  EXPECT_FALSE(failed.record.plan.present);
}

TEST(ConfigurationRun, AnInvalidOrStoppedConfigurationIsSkippedAtItsPlan) {
  const RunOptions opts = two_rounds();
  ConfigurationRun invalid(tiny_run(), 0, "seq: 63: the zigzag split needs S % (2c) == 0");
  EXPECT_EQ(invalid.plan(opts, memory_budget(opts), SweepStop{}), "seq: 63: the zigzag split needs S % (2c) == 0");
  const RecordEntry skipped = invalid.skip("why");
  ASSERT_TRUE(skipped.closed);
  EXPECT_EQ(*skipped.closed, RunStatus::skipped);
  EXPECT_EQ(skipped.record.status, RunStatus::skipped);
  EXPECT_EQ(skipped.record.reason, "why");
  EXPECT_FALSE(invalid.due(0));
  EXPECT_EQ(invalid.final_status(), RunStatus::skipped);

  ConfigurationRun later(tiny_run(), 1, "");
  SweepStop stop;
  stop.reason = "the sweep was interrupted by SIGINT";
  EXPECT_EQ(later.plan(opts, memory_budget(opts), stop), "not run: the sweep was interrupted by SIGINT");
}

TEST(ConfigurationRun, AStoppedSweepKeepsTheRoundsThatRanWithoutWritingThemTwice) {
  AfterFirstRound f;
  ConfigurationRun& run = f.run;
  SweepStop stop;
  stop.reason = "the sweep stopped after a fatal error in another configuration";
  const RecordEntry kept = run.keep_rounds_run(stop);
  ASSERT_TRUE(kept.closed);
  EXPECT_EQ(*kept.closed, RunStatus::ok);
  EXPECT_FALSE(kept.append);
  EXPECT_NE(kept.detail.find("(1 of 2 rounds: the sweep stopped"), std::string::npos) << kept.detail;
  EXPECT_FALSE(run.due(1));
}

TEST(ConfigurationRun, ARoundTheADriverCutKeepsTheRoundsBeforeIt) {
  AfterFirstRound f;
  ConfigurationRun& run = f.run;
  int asked = 0;
  const RoundResult cut = run.run_round(1, f.refs, [&](int s) {
    ++asked;
    return s == 2 ? std::string("stopped by the A/B driver: the new build ended in round 2") : std::string();
  });
  EXPECT_TRUE(cut.cut);
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(cut.failure, "stopped by the A/B driver: the new build ended in round 2");
  SweepStop stop;
  stop.reason = cut.failure;
  const RecordEntry kept = run.after_round(1, cut, stop);
  ASSERT_TRUE(kept.closed);
  EXPECT_EQ(*kept.closed, RunStatus::ok);  // not a fault of the configuration
  EXPECT_EQ(kept.record.timing.rounds, 1);
  EXPECT_EQ(kept.record.timing.count, 2);  // round 1's two samples; round 2's first is not kept
  EXPECT_FALSE(kept.append);
  EXPECT_NE(kept.detail.find("(1 of 2 rounds: stopped by the A/B driver"), std::string::npos) << kept.detail;
}

TEST(ConfigurationRun, AFirstRoundTheADriverCutLeavesItNotRun) {
  const RunOptions opts = two_rounds();
  ConfigurationRun run(tiny_run(), 0, "");
  ASSERT_EQ(run.plan(opts, memory_budget(opts), SweepStop{}), "");
  ReferenceCache refs;
  const RoundResult cut = run.run_round(0, refs, [](int) { return std::string("stopped by the A/B driver: bye"); });
  ASSERT_TRUE(cut.cut);
  SweepStop stop;
  stop.reason = cut.failure;
  const RecordEntry skipped = run.after_round(0, cut, stop);
  ASSERT_TRUE(skipped.closed);
  EXPECT_EQ(*skipped.closed, RunStatus::skipped);
  EXPECT_EQ(skipped.record.reason, "not run: stopped by the A/B driver: bye");
  EXPECT_EQ(run.final_status(), RunStatus::skipped);
}

// The record the sweep builds is what a reader of its line gets back: one writer, one reader.
TEST(ConfigurationRun, EachEntrysRecordReadsBackAsWritten) {
  AfterFirstRound f;
  const auto same_after_reading = [](const RecordEntry& e) {
    const std::string line = reports::to_json(e.record).dump();
    EXPECT_EQ(reports::to_json(reports::read_run_record(nlohmann::json::parse(line))).dump(), line);
  };
  same_after_reading(f.first);
  EXPECT_TRUE(f.first.record.timing.present && f.first.record.metrics.present && f.first.record.timeline);
  same_after_reading(f.run.after_round(1, RoundResult{"rank 1: injected", false, 0}, SweepStop{}));

  const RunOptions opts = two_rounds();
  ConfigurationRun early(tiny_run(), 0, "");
  ASSERT_EQ(early.plan(opts, memory_budget(opts), SweepStop{}), "");
  same_after_reading(early.after_round(0, RoundResult{"boom", false, 0}, SweepStop{}));
  ConfigurationRun invalid(tiny_run(), 0, "why");
  invalid.plan(opts, memory_budget(opts), SweepStop{});
  same_after_reading(invalid.skip("why"));
}

}  // namespace
}  // namespace rb::bench
