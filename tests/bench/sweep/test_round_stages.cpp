// Each stage of a round alone: the faults a round carries, the checked pass, the timed samples and
// their throttle verdicts, the standing, the stopping verdict and the trace files.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/sweep/round_stages.hpp"
#include "ring/check/reference.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/plan.hpp"
#include "tests/bench/sweep/tiny_sweep.hpp"

namespace rb::bench {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;
const auto tiny = testing::tiny_config;

// A stand-in pass: each call's time is its index in ms, its clock from `clocks` in turn.
struct FakePasses {
  std::vector<std::optional<double>> clocks;
  std::vector<bool> recorded;
  ring::PassRecord operator()(bool record) {
    ring::PassRecord p;
    p.wall_ns = static_cast<std::int64_t>(recorded.size() + 1) * 1'000'000;
    p.sm_clock_mhz = clocks.empty() ? std::nullopt : clocks[recorded.size() % clocks.size()];
    recorded.push_back(record);
    return p;
  }
};

TEST(RoundFaults, EachKindActsOnlyWhereItIsAimed) {
  struct Case {
    std::string spec;
    int config, round;
    bool fatal, corrupt;
    ring::InjectedFault pass;
    std::optional<double> clock;
  };
  const std::vector<Case> cases{
      {"", 0, 0, false, false, ring::InjectedFault::none, std::nullopt},
      {"throw@2/2", 2, 1, false, false, ring::InjectedFault::throw_in_pass, std::nullopt},
      {"throw@2/2", 2, 0, false, false, ring::InjectedFault::none, std::nullopt},
      {"throw@2/2", 1, 1, false, false, ring::InjectedFault::none, std::nullopt},
      {"hang@0", 0, 4, false, false, ring::InjectedFault::hang, std::nullopt},
      {"corrupt@1", 1, 0, false, true, ring::InjectedFault::none, std::nullopt},
      {"fatal@1", 1, 2, true, false, ring::InjectedFault::none, std::nullopt},
      // The made-up clock belongs to the configuration in every round, slow in the rounds hit.
      {"throttle@1/1", 1, 0, false, false, ring::InjectedFault::none, 500.0},
      {"throttle@1/1", 1, 1, false, false, ring::InjectedFault::none, kInjectedNominalMhz},
      {"throttle@1/1", 0, 0, false, false, ring::InjectedFault::none, std::nullopt},
  };
  for (const auto& c : cases) {
    const RoundFaults f = round_faults(parse_fault(c.spec), c.config, c.round);
    SCOPED_TRACE(c.spec + " config " + std::to_string(c.config) + " round " + std::to_string(c.round));
    EXPECT_EQ(f.fatal, c.fatal);
    EXPECT_EQ(f.corrupt, c.corrupt);
    EXPECT_EQ(f.pass, c.pass);
    EXPECT_EQ(f.clock_mhz, c.clock);
  }
}

TEST(RoundFaults, AnUnknownKindNamesEveryKnownOne) {
  try {
    parse_fault("stall@1");
    FAIL() << "stall@1 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--inject-fault");
    EXPECT_NE(e.rule().find("throw, hang, corrupt, fatal, throttle, slow"), std::string::npos) << e.rule();
  }
}

TEST(RoundFaults, AListAimsAtEveryConfigurationInIt) {
  const FaultSpec f = parse_fault("throw@1,4/2");
  EXPECT_EQ(f.configs, (std::vector<int>{1, 4}));
  for (int config = 0; config < 6; ++config)
    EXPECT_EQ(round_faults(f, config, 1).pass == ring::InjectedFault::throw_in_pass, config == 1 || config == 4);
  EXPECT_EQ(round_faults(f, 4, 0).pass, ring::InjectedFault::none);
}

TEST(RoundFaults, SlowTakesAPercentageAndNothingElseDoes) {
  const FaultSpec f = parse_fault("slow:15%@0,3");
  EXPECT_EQ(f.kind, FaultKind::slow);
  EXPECT_DOUBLE_EQ(f.slow_pct, 15.0);
  EXPECT_DOUBLE_EQ(round_faults(f, 3, 2).slow_pct, 15.0);
  EXPECT_DOUBLE_EQ(round_faults(f, 1, 0).slow_pct, 0.0);
  EXPECT_DOUBLE_EQ(parse_fault("slow:2.5@0").slow_pct, 2.5);
  for (const char* bad : {"slow@0", "slow:0@0", "slow:-5@0", "slow:abc@0", "slow:1001@0", "throw:5@0", "slow:5@",
                          "slow:5@1,,2", "slow:5@x"}) {
    SCOPED_TRACE(bad);
    try {
      parse_fault(bad);
      FAIL() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "--inject-fault");
      EXPECT_EQ(e.value(), bad);
    }
  }
}

TEST(Slowed, EveryPassTakesThePercentageLongerInRealTime) {
  FakePasses passes;
  const PassFn slow = slowed(std::ref(passes), 50);
  const auto begin = std::chrono::steady_clock::now();
  const ring::PassRecord p = slow(true);
  const auto spent = std::chrono::steady_clock::now() - begin;
  EXPECT_EQ(p.wall_ns, 1'500'000);  // the fake pass took 1 ms as recorded, +50%
  EXPECT_GE(spent, std::chrono::microseconds(500));
  EXPECT_EQ(passes.recorded, (std::vector<bool>{true}));
  const PassFn same = slowed(std::ref(passes), 0);
  EXPECT_EQ(same(false).wall_ns, 2'000'000);
}

TEST(PassesInRound, TheRepeatsAreSpreadWithTheRemainderFirst) {
  EXPECT_EQ(passes_in_round(8, 3, 0), 3);
  EXPECT_EQ(passes_in_round(8, 3, 1), 3);
  EXPECT_EQ(passes_in_round(8, 3, 2), 2);
  for (int repeats = 1; repeats <= 20; ++repeats)
    for (int rounds = 1; rounds <= repeats; ++rounds) {
      int sum = 0;
      for (int r = 0; r < rounds; ++r) sum += passes_in_round(repeats, rounds, r);
      EXPECT_EQ(sum, repeats) << repeats << " over " << rounds;
    }
  EXPECT_THROW(passes_in_round(8, 3, 3), Error);
}

TEST(TimedSamples, WarmUpIsUntimedAndEveryTimedPassIsOfferedToTheFilter) {
  FakePasses passes;
  ThrottleFilter filter(ThrottleRule{75, 0}, std::nullopt, "none");
  const TimedSamples t = timed_samples(std::ref(passes), 2, 3, filter, std::nullopt);
  EXPECT_EQ(passes.recorded, (std::vector<bool>{false, false, true, true, true}));
  EXPECT_EQ(t.ms, (std::vector<double>{3.0, 4.0, 5.0}));
  ASSERT_EQ(t.passes.size(), 3U);
  EXPECT_EQ(t.passes[0].wall_ns, 3'000'000);
  EXPECT_EQ(t.dropped, 0);
  EXPECT_EQ(filter.taken(), 3);
}

TEST(TimedSamples, TheGateIsAskedBeforeEachTimedPassAndAReasonCutsTheRound) {
  FakePasses passes;
  ThrottleFilter filter(ThrottleRule{75, 0}, std::nullopt, "none");
  std::vector<int> asked;
  const SampleGate all = [&](int s) {
    asked.push_back(s);
    return std::string();
  };
  EXPECT_EQ(timed_samples(std::ref(passes), 1, 3, filter, std::nullopt, all).ms.size(), 3U);
  EXPECT_EQ(asked, (std::vector<int>{1, 2, 3}));  // not before the warm-up
  const SampleGate cut_at_3 = [](int s) { return s == 3 ? std::string("the driver stopped") : std::string(); };
  FakePasses more;
  try {
    timed_samples(std::ref(more), 1, 4, filter, std::nullopt, cut_at_3);
    FAIL() << "not cut";
  } catch (const RoundCut& e) {
    EXPECT_STREQ(e.what(), "the driver stopped");
  }
  EXPECT_EQ(more.recorded, (std::vector<bool>{false, true, true}));  // the third timed pass never ran
}

TEST(TimedSamples, SamplesUnderTheThresholdAreDroppedButKeptByTheFilter) {
  FakePasses passes{{1000.0, 500.0}, {}};  // every other pass ran throttled
  ThrottleFilter filter(ThrottleRule{75, 0}, 1000.0, "test");
  const TimedSamples t = timed_samples(std::ref(passes), 0, 4, filter, std::nullopt);
  EXPECT_EQ(t.ms, (std::vector<double>{1.0, 3.0}));
  EXPECT_EQ(t.dropped, 2);
  EXPECT_EQ(filter.taken(), 4);
  EXPECT_EQ(filter.dropped(), 2);
  // An injected clock overrides what the passes read.
  FakePasses fast{{1000.0}, {}};
  ThrottleFilter injected(ThrottleRule{75, 0}, kInjectedNominalMhz, "test");
  const TimedSamples all_dropped = timed_samples(std::ref(fast), 0, 3, injected, 500.0);
  EXPECT_TRUE(all_dropped.ms.empty());
  EXPECT_EQ(all_dropped.dropped, 3);
  EXPECT_NE(injected.failure(), "");
}

TEST(CheckedPass, ACorrectRunPassesAndACorruptedOneFails) {
  const ring::Plan plan = ring::make_plan(tiny());
  RunOptions opts;
  std::vector<double> ref;
  const ReferenceProvider reference = [&](const ring::CheckRows& rows) -> const std::vector<double>& {
    ref = ring::reference_rows(plan.config, rows.positions, 1);
    return ref;
  };
  for (const bool corrupt : {false, true}) {
    auto exec = ring::make_cpu_executor(plan);
    int passes = 0;
    const PassFn pass = [&](bool record) {
      ++passes;
      return exec->run_pass(record);
    };
    const ring::Correctness c = checked_pass(*exec, pass, opts, reference, corrupt).output;
    EXPECT_EQ(passes, 1);
    EXPECT_EQ(c.rows_checked, 64);
    EXPECT_EQ(c.passed(), !corrupt);
    if (corrupt) {
      EXPECT_GE(c.max_abs_err, 0.5);
    }
  }
}

// With a backward the check covers dQ, dK and dV too; the wrong-block fault leaves the output right
// and fails the gradients, and the standing names the tensor.
TEST(CheckedPass, ABackwardIsCheckedOnItsGradients) {
  Config cfg = tiny();
  cfg.phase = Phase::fwd_bwd;
  cfg.dtype = DType::float64;
  const ring::Plan plan = ring::make_plan(cfg);
  RunOptions opts;
  std::vector<double> ref;
  const ReferenceProvider reference = [&](const ring::CheckRows& rows) -> const std::vector<double>& {
    ref = ring::reference_rows(plan.config, rows.positions, 1);
    return ref;
  };
  for (const bool fault : {false, true}) {
    ring::CpuOptions copts;
    if (fault) copts.fault = ring::InjectedFault::wrong_kv_block;
    auto exec = ring::make_cpu_executor(plan, copts);
    const CheckedPass c = checked_pass(
        *exec, [&](bool r) { return exec->run_pass(r); }, opts, reference, false);
    ASSERT_TRUE(c.gradients.has_value());
    EXPECT_TRUE(c.output.passed());
    EXPECT_FALSE(c.gradients->dkv_unchecked.has_value());
    EXPECT_EQ(c.gradients->dq.rows_checked, 64);
    EXPECT_EQ(c.passed(), !fault);
    const Standing s = standing_of(cfg, c, nullptr);
    EXPECT_EQ(s.status, fault ? RunStatus::failed : RunStatus::ok);
    if (fault) {
      EXPECT_EQ(s.reason.rfind("gradient correctness: d", 0), 0U) << s.reason;
    }
  }
}

TEST(CheckedPass, DumpWritesTheConfigurationsArrays) {
  const TempDir dir("round_stages_dump");
  const ring::Plan plan = ring::make_plan(tiny());
  RunOptions opts;
  opts.dump_dir = dir.path;
  std::vector<double> ref;
  auto exec = ring::make_cpu_executor(plan);
  (void)checked_pass(
      *exec, [&](bool r) { return exec->run_pass(r); }, opts,
      [&](const ring::CheckRows& rows) -> const std::vector<double>& {
        ref = ring::reference_rows(plan.config, rows.positions, 1);
        return ref;
      },
      false);
  std::size_t npy = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.path)) npy += e.path().extension() == ".npy";
  EXPECT_EQ(npy, 4U);  // Q, K, V, O
}

TEST(Standing, TheChecksVerdictWinsOverTheThrottles) {
  const Config cfg = tiny();
  ring::Correctness bad;
  bad.rows_checked = 64;
  bad.over_tolerance = 3;
  bad.tolerance = 1e-10;
  bad.max_abs_err = 0.5;
  ThrottleFilter throttled(ThrottleRule{75, 0}, 1000.0, "test");
  for (int i = 0; i < 3; ++i) throttled.add(1.0, 100.0);
  ASSERT_NE(throttled.failure(), "");

  const Standing both = standing_of(cfg, CheckedPass{bad, std::nullopt}, &throttled);
  EXPECT_EQ(both.status, RunStatus::failed);
  EXPECT_EQ(both.reason.rfind("correctness: 3 of 2048 checked elements", 0), 0U) << both.reason;
  const Standing throttle_only = standing_of(cfg, CheckedPass{ring::Correctness{}, std::nullopt}, &throttled);
  EXPECT_EQ(throttle_only.status, RunStatus::failed);
  EXPECT_EQ(throttle_only.reason, throttled.failure());
  const Standing fine = standing_of(cfg, std::nullopt, nullptr);
  EXPECT_EQ(fine.status, RunStatus::ok);
  EXPECT_EQ(fine.reason, "");
}

TEST(StopVerdict, StopsOnceSteadyAfterTheMinimumRoundsAndSamples) {
  StoppingRule rule;
  rule.max_noise_pct = 1;
  rule.min_samples = 4;
  rule.min_rounds = 2;
  rule.max_time_s = 60;
  const std::vector<double> steady{10.0, 10.0, 10.01, 10.0};
  EXPECT_EQ(stop_verdict(rule, std::vector<double>{10.0, 10.0}, 1, 0.1, nullptr), "");  // too few
  EXPECT_EQ(stop_verdict(rule, steady, 1, 0.1, nullptr), "");                           // too few rounds
  EXPECT_EQ(stop_verdict(rule, steady, 2, 0.1, nullptr).rfind("noise", 0), 0U);
  const std::vector<double> noisy{10.0, 20.0, 5.0, 40.0};
  EXPECT_EQ(stop_verdict(rule, noisy, 3, 0.1, nullptr), "");
  EXPECT_EQ(stop_verdict(rule, noisy, 3, 61.0, nullptr).rfind("max-time 60 s", 0), 0U);
}

TEST(WriteTraces, WritesPerfettoAndKinetoFilesAndReportsAFailureInsteadOfThrowing) {
  const TempDir dir("round_stages_traces");
  const ring::Plan plan = ring::make_plan(tiny());
  auto exec = ring::make_cpu_executor(plan);
  const ring::PassRecord p = exec->run_pass(true);
  RunOptions opts;
  opts.out_dir = dir.path;
  EXPECT_EQ(write_traces(opts, plan.config, p.timeline, nullptr), "");
  std::size_t json_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.path / "traces"))
    json_files += e.is_regular_file() && e.path().string().find(".json") != std::string::npos;
  EXPECT_EQ(json_files, 3U);  // one for Perfetto, one per rank for HTA

  // OUT/traces is a file: the trace is lost, not the round.
  const TempDir blocked("round_stages_blocked");
  std::ofstream(blocked.path / "traces") << "not a folder";
  opts.out_dir = blocked.path;
  EXPECT_NE(write_traces(opts, plan.config, p.timeline, nullptr), "");
}

}  // namespace
}  // namespace rb::bench
