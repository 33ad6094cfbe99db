// Numeric flags (bench/cli/number_flag.hpp): read by the strict reader while CLI11 parses, each
// into its own type, and the start-up check that refuses a flag declared with a bare number.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/cli/number_flag.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

void parse(CLI::App& app, std::vector<std::string> args) {
  std::vector<char*> argv{const_cast<char*>("ringbench")};
  for (auto& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
}

struct Flags {
  double x = 1;
  int n = 1;
  std::size_t size = 1;
  std::optional<int> given;
  std::vector<int> list{1};
};

void declare(CLI::App& app, Flags& f) {
  CLI::App* sub = app.add_subcommand("cmd");
  add_number_flag(sub, "--x", f.x, NumberRange{.lo = 0, .hi = 10, .least_nonzero = 1e-3}, "");
  add_integer_flag(sub, "--n", f.n, 1, 100, "");
  add_integer_flag(sub, "--size", f.size, 0, 1 << 24, "");
  add_integer_flag(sub, "--given", f.given, 1, 100, "");
  add_list_flag<int>(
      sub, "--list", f.list, [](const std::string& t) { return static_cast<int>(parse_integer(t, "--list", 1, 9)); },
      "", "N");
}

TEST(NumberFlag, ReadsEachFlagIntoItsType) {
  CLI::App app;
  Flags f;
  declare(app, f);
  parse(app, {"cmd", "--x", "2.5", "--n", "1e2", "--size", "1.5e3", "--list", "1,2e0,3"});
  EXPECT_EQ(f.x, 2.5);
  EXPECT_EQ(f.n, 100);
  EXPECT_EQ(f.size, 1500u);
  EXPECT_FALSE(f.given.has_value());
  EXPECT_EQ(f.list, (std::vector<int>{1, 2, 3}));
}

TEST(NumberFlag, RefusesWhileParsingNamingTheFlag) {
  const std::vector<std::vector<std::string>> table{{"--x", "0x10"},     {"--x", "1e-320"}, {"--x", "1e-4"},
                                                    {"--x", "11"},       {"--x", "inf"},    {"--n", "1.5"},
                                                    {"--n", " 5"},       {"--n", "+5"},     {"--n", "5x"},
                                                    {"--size", "1e999"}, {"--given", "0"},  {"--list", "1,,2"},
                                                    {"--list", "1,0x2"}, {"--list", "10"}};
  for (const auto& args : table) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    CLI::App app;
    Flags f;
    declare(app, f);
    try {
      parse(app, {"cmd", args[0], args[1]});
      FAIL() << "taken";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), args[0]);
    }
  }
}

TEST(NumberFlag, ABareNumericOptionIsRefusedAtStartUp) {
  CLI::App bare;
  double x = 0;
  bare.add_subcommand("cmd")->add_option("--x", x, "declared with CLI11's own conversion");
  EXPECT_THROW(check_number_flags(bare), std::logic_error);
  CLI::App bare_list;
  std::vector<int> list;
  bare_list.add_subcommand("cmd")->add_option("--list", list);
  EXPECT_THROW(check_number_flags(bare_list), std::logic_error);

  CLI::App declared;
  Flags f;
  declare(declared, f);
  std::string text;
  declared.get_subcommand("cmd")->add_option("--text", text);
  EXPECT_NO_THROW(check_number_flags(declared));
}

}  // namespace
}  // namespace rb::bench
