// `ringbench trend HISTORY_DIR -o trend.html`: the asv-style trend page of a nightly history
// (reports/compare/trend.hpp): every metric of every configuration against the date.
#include <memory>

#include <fmt/format.h>

#include "bench/cli/command.hpp"
#include "bench/cli/number_flag.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/json_input.hpp"
#include "common/json_output.hpp"
#include "common/output_file.hpp"
#include "reports/compare/compare.hpp"
#include "reports/compare/trend.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::bench {
namespace {

struct TrendFlags {
  std::string dir;
  std::string out = "trend.html";
  std::string title = "ringbench trend";
  std::string compare, baseline;
  std::string threshold = "5%";
  std::string metric = "time";
  bool json = false;
};

int run_trend(const TrendFlags& f) {
  check_output_file("--out", f.out);
  // A page inside the history would be read as a night by every later trend.
  check_outputs_apart({{"history", f.dir, PathKind::folder}, {"--baseline", f.baseline}, {"--compare", f.compare}},
                      {{"--out", f.out}});
  auto history = reports::load_history(f.dir, reports::parse_threshold(f.threshold, "--threshold"));
  history.metric = std::string(reports::parse_compare_metric(f.metric, "--metric")->name);
  if (!f.baseline.empty()) reports::set_baseline(history, reports::read_results(f.baseline));
  if (!f.compare.empty())
    reports::set_tonight(history, read_json_file(f.compare, "--compare", "a compare JSON"), f.compare);
  write_output_file("--out", f.out, reports::trend_page(history, f.title));
  if (f.json) print_quietly(stdout, fmt::format("{}\n", json_text(reports::to_json(history), 2)));
  print_quietly(stderr,
                fmt::format("ringbench: trend of {} configurations over {} dates ({} to {})\n", history.configs.size(),
                            history.dates.size(), history.dates.front(), history.dates.back()));
  // What the page leads with, then the machine probe's steps and every step, regressions first, one
  // line each: what a nightly log should show without the page.
  for (const auto& line : reports::lead_sentences(history)) print_quietly(stderr, fmt::format("ringbench: {}\n", line));
  if (history.probe)
    for (const auto& t : history.probe->steps)
      if (t.beyond_threshold)
        print_quietly(stderr, fmt::format("ringbench: {}\n", reports::probe_sentence(history, t)));
  for (const auto& s : reports::steps_by_severity(history))
    print_quietly(stderr, fmt::format("ringbench: {} {} {} from {}: {:+.1f}% ({}..{})\n",
                                      s.step->regression ? "REGRESSION" : "step", s.config->label, s.series->metric,
                                      s.step->date, 100 * s.step->change,
                                      reports::short_commit(history, s.step->previous_commit),
                                      reports::short_commit(history, s.step->commit)));
  // With --json, stdout is the JSON alone so it can be piped.
  std::error_code ec;  // the working folder may be gone by now; the page is written all the same
  const std::filesystem::path shown = std::filesystem::absolute(f.out, ec);
  print_quietly(f.json ? stderr : stdout, fmt::format("trend: {}\n", ec ? f.out : shown.string()));
  return kExitOk;
}

}  // namespace

void add_trend_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<TrendFlags>();
  CLI::App* sub = app.add_subcommand("trend",
                                     "Draw each metric against the date from a history directory of results files");
  sub->add_option("history", f->dir, "Directory of results files named YYYY-MM-DD*.json (scripts/nightly.sh)")
      ->required()
      ->check(CLI::Validator([](std::string& p) { return existing_path_problem(p, true); }, "DIR"));
  sub->add_option("-o,--out", f->out, "The HTML page to write")->capture_default_str();
  sub->add_option("--title", f->title, "Page title")->capture_default_str();
  sub->add_flag("--json", f->json, "Also print the series and the steps found as JSON on stdout");
  const CLI::Validator existing_file([](std::string& p) { return existing_path_problem(p, false); }, "FILE");
  sub->add_option("--compare", f->compare, "Tonight's `compare --json-out` file: its verdicts lead the page")
      ->check(existing_file);
  sub->add_option("--baseline", f->baseline, "The baseline results file: marked on every chart")->check(existing_file);
  add_read_flag<std::string>(
      sub, "--metric", f->metric,
      [](const std::string& m) {
        reports::parse_compare_metric(m, "--metric");
        return m;
      },
      "The metric the lead sentences count: time (median, default), tflops, overlap, exposed_comm or imbalance",
      "METRIC")
      ->capture_default_str();
  // Read when parsed, so a bad value is refused before the history is read; kept as written for --help.
  add_read_flag<std::string>(
      sub, "--threshold", f->threshold,
      [](const std::string& t) {
        reports::parse_threshold(t, "--threshold");
        return t;
      },
      "A step in the history counts beyond this relative change (5% or 0.05)", "REL")
      ->capture_default_str();
  sub->callback([f, &action] { action = [f] { return run_trend(*f); }; });
}

}  // namespace rb::bench
