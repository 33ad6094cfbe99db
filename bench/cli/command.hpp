// How subcommands plug into the `ringbench` command line. Each subcommand lives in its own
// <name>_command.cpp, registers its flags on the CLI11 app, and on parse sets the action that main
// runs afterwards. Actions return the exit code (0 ok, 1 a check failed or a regression was found)
// and throw rb::InputError for bad input, which main turns into one line on stderr and exit 2.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rb::bench {

using CommandAction = std::function<int()>;

void add_run_command(CLI::App& app, CommandAction& action);
void add_model_command(CLI::App& app, CommandAction& action);
void add_analyze_command(CLI::App& app, CommandAction& action);
void add_report_command(CLI::App& app, CommandAction& action);
void add_compare_command(CLI::App& app, CommandAction& action);
void add_accept_command(CLI::App& app, CommandAction& action);
void add_trend_command(CLI::App& app, CommandAction& action);
void add_ab_command(CLI::App& app, CommandAction& action);
void add_fleet_command(CLI::App& app, CommandAction& action);

// Throws the InputError `ringbench run ARGS` would exit 2 with, running nothing: `ab` checks the
// options it will pass to both builds, and the sweep they make, before it starts either.
void check_run_arguments(const std::vector<std::string>& args);

// Exit codes, documented in docs/cli.md.
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

}  // namespace rb::bench
