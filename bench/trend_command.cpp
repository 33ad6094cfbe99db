// `ringbench trend HISTORY_DIR -o trend.html`: the asv-style trend page of a nightly history
// (reports/trend.hpp): every metric of every configuration against the date.
#include <memory>

#include <fmt/format.h>

#include "bench/command.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "reports/trend.hpp"

namespace rb::bench {
namespace {

struct TrendFlags {
  std::string dir;
  std::string out = "trend.html";
  std::string title = "ringbench trend";
  bool json = false;
};

int run_trend(const TrendFlags& f) {
  check_output_file("--out", f.out);
  const auto history = reports::load_history(f.dir);
  write_output_file("--out", f.out, reports::trend_page(history, f.title));
  if (f.json) fmt::print("{}\n", reports::to_json(history).dump(2));
  fmt::print(stderr, "ringbench: trend of {} configurations over {} dates ({} to {})\n", history.configs.size(),
             history.dates.size(), history.dates.front(), history.dates.back());
  // With --json, stdout is the JSON alone so it can be piped.
  fmt::print(f.json ? stderr : stdout, "trend: {}\n", std::filesystem::absolute(f.out).string());
  return kExitOk;
}

}  // namespace

void add_trend_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<TrendFlags>();
  CLI::App* sub = app.add_subcommand("trend", "Draw each metric against the date from a history directory of results files");
  sub->add_option("history", f->dir, "Directory of results files named YYYY-MM-DD*.json (scripts/nightly.sh)")->required();
  sub->add_option("-o,--out", f->out, "The HTML page to write")->capture_default_str();
  sub->add_option("--title", f->title, "Page title")->capture_default_str();
  sub->add_flag("--json", f->json, "Also print the series as JSON on stdout");
  sub->callback([f, &action] { action = [f] { return run_trend(*f); }; });
}

}  // namespace rb::bench
