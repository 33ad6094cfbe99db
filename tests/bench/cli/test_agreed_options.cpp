// The options every MPI rank must share (bench/cli/agreed_options.hpp), derived from the command:
// an option added to `run` is agreed on with no list to edit, the options marked away are exactly
// the rank-local ones and the sweep's own, and equal values agree however they were given.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/cli/agreed_options.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/number_flag.hpp"

namespace rb::bench {
namespace {

void parse(CLI::App& app, std::vector<std::string> args) {
  std::vector<char*> argv{const_cast<char*>("ringbench")};
  for (auto& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
}

// One rank's `ringbench run ARGS`, and what it would bring to the agreement. `extend` adds options
// to the run command after it is registered, as a new option in run_command.cpp would be.
struct Rank {
  CLI::App app;
  CommandAction action;
  CLI::App* run = nullptr;
  std::string brand_new = "unset";
  double new_number = 1.5;
  bool new_flag = false;

  explicit Rank(bool extend = false) {
    add_run_command(app, action);
    run = app.get_subcommand("run");
    if (extend) {
      run->add_option("--brand-new", brand_new, "an option added after this test was written");
      add_number_flag(run, "--new-number", new_number, NumberRange{.lo = 0, .hi = 10}, "");
      run->add_flag("--new-flag", new_flag, "");
    }
  }
  nlohmann::json agreed(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    parse(app, args);
    return agreed_options(*run);
  }
};

// The first JSON path where two ranks' agreements differ ("" where they agree), as
// agree_on_input names it.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b) {
  const nlohmann::json patch = nlohmann::json::diff(a, b);
  return patch.empty() ? "" : patch[0]["path"].get<std::string>();
}

TEST(AgreedOptions, AnOptionAddedToRunIsAgreedWithoutAList) {
  const std::vector<std::string> base{"--seq", "64", "--cp", "2"};
  struct Case {
    std::vector<std::string> rank0, rank1;
    std::string differs_at;  // "" where the ranks agree
  };
  const Case cases[] = {
      {{}, {}, ""},
      {{"--brand-new", "a"}, {"--brand-new", "a"}, ""},
      {{"--brand-new", "a"}, {"--brand-new", "b"}, "/--brand-new"},
      {{}, {"--brand-new", "b"}, "/--brand-new"},
      {{}, {"--brand-new", "unset"}, ""},  // given its default: the same value
      {{"--new-number", "2"}, {"--new-number", "2.0"}, ""},
      {{"--new-number", "2"}, {"--new-number", "3"}, "/--new-number"},
      {{}, {"--new-flag"}, "/--new-flag"},
  };
  for (const Case& c : cases) {
    Rank r0(true), r1(true);
    std::vector<std::string> a = base, b = base;
    a.insert(a.end(), c.rank0.begin(), c.rank0.end());
    b.insert(b.end(), c.rank1.begin(), c.rank1.end());
    const nlohmann::json j0 = r0.agreed(a), j1 = r1.agreed(b);
    SCOPED_TRACE(j0.dump() + "\n" + j1.dump());
    EXPECT_EQ(first_difference(j0, j1), c.differs_at);
    EXPECT_TRUE(j0.contains("--brand-new"));
    EXPECT_TRUE(j0.contains("--new-number"));
    EXPECT_TRUE(j0.contains("--new-flag"));
  }
}

TEST(AgreedOptions, OnlyTheSweepsOwnAndTheRankLocalOptionsAreLeftOut) {
  Rank r;
  const nlohmann::json j = r.agreed({"--seq", "64"});
  std::set<std::string> left_out, presence;
  for (CLI::Option* opt : r.run->get_options()) {
    if (opt == r.run->get_help_ptr()) continue;
    const std::string name = opt->get_positional() ? opt->get_name(true) : "--" + opt->get_lnames().front();
    if (agreement_of(opt) == Agreement::none) {
      left_out.insert(name);
      EXPECT_FALSE(j.contains(name)) << name;
    } else {
      EXPECT_TRUE(j.contains(name)) << name;
    }
    if (agreement_of(opt) == Agreement::presence) presence.insert(name);
  }
  // The profile, the axes, -b/-e/-f (the seq axis), --causal and --pad-documents are agreed as the sweep
  // they make;
  // --out is rank 0's.
  const std::set<std::string> sweep_and_local{"profile",         "--seq",      "--seq-begin",     "--seq-end",
                                              "--seq-factor",    "--cp",       "--split",         "--variant",
                                              "--heads",         "--kv-heads", "--head-dim",      "--causal",
                                              "--no-causal",     "--dtype",    "--backend",       "--transport",
                                              "--seed",          "--repeats",  "--warmup",        "--link-gbps",
                                              "--kernel",        "--phase",    "--dkv",           "--documents",
                                              "--pad-documents", "--out",      "--ulysses-degree"};
  EXPECT_EQ(left_out, sweep_and_local);
  EXPECT_EQ(presence, std::set<std::string>{"--dump"});
  // Every option the hand-written list held before it was derived.
  for (
      const char* name :
      {"--full-check-limit",   "--check-rows",       "--rounds",   "--no-interleave", "--timeout",     "--memory-limit",
       "--inject-fault",       "--skip-invalid",     "--trace",    "--dump",          "--rank-mode",   "--launch",
       "--l2-flush",           "--devices",          "--no-cupti", "--max-noise",     "--min-samples", "--max-time",
       "--throttle-threshold", "--throttle-recovery"})
    EXPECT_TRUE(j.contains(name)) << name;
}

TEST(AgreedOptions, EachKindOfOptionBringsTheValueTheCommandUses) {
  Rank given, defaults;
  const nlohmann::json j = given.agreed({"--seq", "64", "--rounds", "1e1", "--timeout", "2.50", "--trace", "--dump",
                                         "/tmp/rank-own", "--rank-mode", "concurrent", "--out", "/tmp/rank-own"});
  EXPECT_EQ(j["--rounds"], "10");
  EXPECT_EQ(j["--timeout"], "2.5");
  EXPECT_EQ(j["--trace"], true);
  EXPECT_EQ(j["--dump"], true);
  EXPECT_EQ(j["--rank-mode"], "concurrent");
  const nlohmann::json d = defaults.agreed({"--seq", "64"});
  EXPECT_EQ(d["--rounds"], "3");
  EXPECT_EQ(d["--timeout"], "0");
  EXPECT_EQ(d["--trace"], false);
  EXPECT_EQ(d["--dump"], false);
  EXPECT_EQ(d["--rank-mode"], "isolated");
}

TEST(AgreedOptions, AnOptionWithoutAVariableIsAgreedByWhatWasTyped) {
  for (const auto& [typed, expected] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{{{}, ""}, {{"--raw", "x"}, "x"}}) {
    CLI::App app;
    CLI::App* cmd = app.add_subcommand("cmd");
    cmd->add_option_function<std::string>(
        "--raw", [](const std::string&) {}, "");
    std::vector<std::string> args{"cmd"};
    args.insert(args.end(), typed.begin(), typed.end());
    parse(app, args);
    EXPECT_EQ(agreed_options(*cmd)["--raw"], expected);
  }
}

}  // namespace
}  // namespace rb::bench
