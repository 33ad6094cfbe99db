// The `ringbench` command line: subcommands register themselves (bench/command.hpp); main parses,
// runs the chosen action and maps errors to the documented exit codes.
#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "bench/command.hpp"
#include "common/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ringbench: benchmark and profile ring attention (context parallelism)", "ringbench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ringbench " RINGBENCH_VERSION);
  rb::bench::CommandAction action;
  rb::bench::add_run_command(app, action);
  rb::bench::add_analyze_command(app, action);
  rb::bench::add_model_command(app, action);
  rb::bench::add_report_command(app, action);
  rb::bench::add_compare_command(app, action);
  rb::bench::add_accept_command(app, action);
  rb::bench::add_trend_command(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, like every other input error (CLI11's own exit() adds a second line).
    fmt::print(stderr, "ringbench: error: {} (see --help)\n", e.what());
    return rb::bench::kExitBadInput;
  } catch (const rb::InputError& e) {
    fmt::print(stderr, "ringbench: error: {}\n", e.what());
    return rb::bench::kExitBadInput;
  }
  try {
    return action ? action() : rb::bench::kExitBadInput;
  } catch (const rb::InputError& e) {
    fmt::print(stderr, "ringbench: error: {}\n", e.what());
    return rb::bench::kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ringbench: failed: {}\n", e.what());
    return rb::bench::kExitCheckFailed;
  }
}
