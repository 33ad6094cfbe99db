// Whether --inject-fault can act where it is aimed (bench/sweep/fault_reach.hpp): a fault past the
// sweep, on a configuration that does not run, in a round it does not plan, in a round the check
// does not run in, or of a kind the configuration's executor or plan cannot take is refused with
// the flag, its text and the rule; every fault that can act passes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/sweep/fault_reach.hpp"
#include "common/error.hpp"
#include "tests/bench/sweep/tiny_sweep.hpp"

namespace rb::bench {
namespace {

// The rule check_fault_reach refuses `text` with, or "" where it passes.
std::string refusal(const std::string& text, const std::vector<Config>& configs,
                    const std::vector<std::string>& invalid = {}, int rounds = 3) {
  RunOptions opts;
  opts.rounds = rounds;
  const FaultSpec f = parse_fault(text);
  try {
    check_fault_reach(f, configs, invalid.empty() ? std::vector<std::string>(configs.size()) : invalid, opts);
    return "";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--inject-fault");
    EXPECT_EQ(e.value(), text);
    return e.rule();
  }
}

std::vector<Config> sweep() {
  Config fwd = testing::tiny_config();  // c = 2, 4 repeats
  Config bwd = fwd;
  bwd.phase = Phase::fwd_bwd;
  Config ulysses = bwd;
  ulysses.variant = Variant::ulysses;
  ulysses.ulysses_degree = 2;
  Config gpu = fwd;
  gpu.backend = Backend::cuda;
  Config one_repeat = bwd;
  one_repeat.repeats = 1;
  return {fwd, bwd, ulysses, gpu, one_repeat};
}

TEST(FaultReach, EveryFaultThatCanActPasses) {
  const auto s = sweep();
  for (const std::string ok : {"throw@0,1,2", "hang@1/3", "corrupt@0,1,2,3", "corrupt@3/1", "fatal@3/2", "throttle@3/1",
                               "slow:20@0,3/3", "wrong-block@1", "wrong-block@1/1", "wrong-block@4"})
    EXPECT_EQ(refusal(ok, s), "") << ok;
  RunOptions none;
  EXPECT_NO_THROW(check_fault_reach(FaultSpec{}, {}, {}, none));  // no fault, no sweep: nothing to check
}

TEST(FaultReach, AFaultPastTheSweepOrOnAConfigurationThatDoesNotRunIsRefused) {
  const auto s = sweep();
  EXPECT_NE(refusal("throw@5", s).find("N = 5 is not a configuration of this sweep, which has 5 (0 to 4)"),
            std::string::npos);
  EXPECT_NE(refusal("corrupt@0,7", s).find("N = 7"), std::string::npos);  // every N, not only the first
  EXPECT_NE(refusal("throw@0", {}).find("no configurations"), std::string::npos);
  std::vector<std::string> invalid(s.size());
  invalid[2] = "cp: 2 does not fit";
  EXPECT_NE(refusal("slow:10@2", s, invalid).find("does not run: cp: 2 does not fit"), std::string::npos);
}

TEST(FaultReach, ARoundItDoesNotPlanOrThatTheCheckDoesNotRunInIsRefused) {
  const auto s = sweep();
  EXPECT_NE(refusal("throw@0/4", s).find("R = 4 is past configuration 0's 3 rounds"), std::string::npos);
  // --rounds 5 over 4 repeats plans 4 rounds (at least a repeat a round): R = 4 is the last.
  EXPECT_EQ(refusal("throw@0/4", s, {}, 5), "");
  EXPECT_NE(refusal("throw@0/5", s, {}, 5).find("past configuration 0's 4 rounds"), std::string::npos);
  EXPECT_NE(refusal("throw@4/2", s).find("past configuration 4's 1 round "), std::string::npos);
  EXPECT_NE(refusal("corrupt@0/2", s).find("round 1"), std::string::npos);
  EXPECT_NE(refusal("wrong-block@1/3", s).find("round 1"), std::string::npos);
}

TEST(FaultReach, APassFaultTheExecutorOrThePlanCannotTakeIsRefused) {
  const auto s = sweep();
  EXPECT_NE(refusal("wrong-block@0", s).find("configuration 0"), std::string::npos);  // forward only
  EXPECT_NE(refusal("wrong-block@0", s).find("no backward step"), std::string::npos);
  EXPECT_NE(refusal("wrong-block@2", s).find("no backward step after the first"), std::string::npos);  // ulysses
  EXPECT_NE(refusal("throw@3", s).find("its cuda executor takes no injected pass fault"), std::string::npos);
  EXPECT_NE(refusal("hang@0,3", s).find("configuration 3"), std::string::npos);
}

}  // namespace
}  // namespace rb::bench
