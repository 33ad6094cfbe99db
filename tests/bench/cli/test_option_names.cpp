// Unknown options (bench/cli/option_names.hpp): each is named before CLI11 parses, with the nearest
// option the command has, or what ringbench calls another tool's spelling; values are not options.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/cli/option_names.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

struct Command {
  CLI::App app;
  CLI::App* run = nullptr;
  std::string out, hidden;
  std::vector<std::string> seq;
  int repeats = 1;
  bool list = false;
  Command() {
    run = app.add_subcommand("run");
    run->add_option("-o,--out", out);
    run->add_option("--seq", seq);
    run->add_option("--repeats", repeats);
    run->add_option("--max-time", out);
    run->add_flag("--list,--dry-run", list);
    run->add_option("--inject-fault", hidden)->group("");
  }
};

// The rule the first unknown option of `args` is refused with, or "" where every one is known.
std::string refusal(const std::vector<std::string>& args, std::string* named = nullptr) {
  Command c;
  try {
    check_option_names(*c.run, args, "run", "unknown option");
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "run");
    if (named) *named = e.value();
    return e.rule();
  }
  return "";
}

TEST(OptionNames, KnownOptionsAndTheirValuesPass) {
  EXPECT_EQ(refusal({"--out", "-weird", "--seq", "1k", "2k", "--repeats", "5", "--dry-run", "--", "--anything"}), "");
  EXPECT_EQ(refusal({"--out=-x", "-ofile", "--list", "p.json", "--inject-fault", "throw@1"}), "");
  EXPECT_EQ(refusal({"--seq", "-1"}), "") << "a negative number is a value, not an option";
}

TEST(OptionNames, AnUnknownOptionIsNamedWithTheNearest) {
  std::string named;
  EXPECT_EQ(refusal({"--repeat", "5"}, &named), "unknown option; did you mean --repeats?");
  EXPECT_EQ(named, "--repeat");
  EXPECT_EQ(refusal({"--repaets=5"}, &named), "unknown option; did you mean --repeats?");
  EXPECT_EQ(named, "--repaets");
  EXPECT_EQ(refusal({"-repeats", "5"}, &named), "unknown option; did you mean --repeats?");
  EXPECT_EQ(named, "-repeats");
  EXPECT_EQ(refusal({"-x5"}, &named), "unknown option");
  EXPECT_EQ(named, "-x");
  EXPECT_EQ(refusal({"--frobnicate"}, &named), "unknown option");
  EXPECT_EQ(named, "--frobnicate");
  // Hidden options are never offered.
  EXPECT_EQ(refusal({"--inject-faults"}), "unknown option");
  // The first unknown one, before the value that follows it.
  EXPECT_EQ(refusal({"--seq", "1k", "-b", "1024", "-e", "4096"}, &named), "unknown option");
  EXPECT_EQ(named, "-b");
}

TEST(OptionNames, OtherToolsSpellingsGetRingbenchsName) {
  EXPECT_NE(refusal({"-n", "5"}).find("did you mean --repeats"), std::string::npos);
  EXPECT_NE(refusal({"--iters", "5"}).find("did you mean --repeats"), std::string::npos);
  EXPECT_NE(refusal({"--min-time", "1"}).find("--max-noise"), std::string::npos);
  EXPECT_NE(refusal({"--profile", "p.json"}).find("ringbench run PROFILE.json"), std::string::npos);
}

}  // namespace
}  // namespace rb::bench
