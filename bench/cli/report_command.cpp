// `ringbench report RESULTS.json [-o report.html]`: renders the HTML report of a results file
// (reports/html/html_report.hpp). A results.jsonl of a killed sweep works too. An unreadable file, a
// foreign schema or an unknown major version is bad input (exit 2) with the reader's message.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/cli/command.hpp"
#include "bench/cli/number_flag.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "reports/compare/trend.hpp"
#include "reports/html/html_report.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/run_record.hpp"

namespace rb::bench {
namespace {

struct ReportFlags {
  std::string results;
  std::string out;
  std::string title;
  std::size_t max_timelines = reports::ReportOptions{}.max_timelines;
  std::vector<std::string> timeline_ids;
  std::string history;
};

int run_report(const ReportFlags& f) {
  const std::filesystem::path out = f.out.empty() ? std::filesystem::path(f.results).parent_path() / "report.html"
                                                  : std::filesystem::path(f.out);
  check_output_file("--out", out);
  check_outputs_apart({{"results", f.results}, {"--history", f.history, PathKind::folder}}, {{"--out", out}});
  const reports::ResultsFile results = reports::read_results(f.results);
  for (const auto& n : results.notes) print_quietly(stderr, fmt::format("ringbench: note: {}\n", n));
  for (const auto& id : f.timeline_ids) {
    const auto& runs = results.runs();
    const bool found = std::any_of(runs.begin(), runs.end(), [&](const nlohmann::json& r) {
      const reports::RunRecord run = reports::read_run_record(r);
      return run.config.id == id && run.timeline;
    });
    if (!found)
      throw InputError("--timeline", id, fmt::format("must be the id of a run in {} that has a timeline", f.results));
  }
  reports::ReportOptions opt;
  opt.title = f.title;
  opt.max_timelines = f.max_timelines;
  opt.timeline_ids = f.timeline_ids;
  if (!f.history.empty()) opt.trend_html = reports::trend_fragment(reports::load_history(f.history));
  reports::write_report(results, out, opt);
  std::error_code ec;  // the working folder may be gone by now; the report is written all the same
  const std::filesystem::path shown = std::filesystem::absolute(out, ec);
  print_quietly(stdout, fmt::format("report: {}\n", (ec ? out : shown).string()));
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<ReportFlags>();
  auto* cmd = app.add_subcommand(
      "report", "Render one self-contained HTML report (inline SVG, no network) of a results.json or results.jsonl");
  cmd->add_option("results", f->results, "results.json (or the results.jsonl of an unfinished sweep)")
      ->required()
      ->check(CLI::Validator([](std::string& p) { return existing_path_problem(p, false); }, "FILE"))
      ->type_name("RESULTS");
  cmd->add_option("-o,--out", f->out, "Where to write the report (default: report.html beside RESULTS)")
      ->type_name("HTML");
  cmd->add_option("--title", f->title, "Page title (default: ringbench: <profile name>)")->type_name("TEXT");
  add_integer_flag(cmd, "--max-timelines", f->max_timelines, 0, 1000000,
                   "Configurations that get a per-rank timeline (the report also caps their total size)")
      ->capture_default_str();
  cmd->add_option("--history", f->history,
                  "A nightly history directory (scripts/nightly.sh): the report gains a trend view")
      ->check(CLI::Validator([](std::string& p) { return existing_path_problem(p, true); }, "DIR"));
  cmd->add_option("--timeline", f->timeline_ids, "Draw the timeline of this configuration id whatever the caps say")
      ->type_name("ID")
      ->expected(1)  // one id per flag, so `--timeline ID RESULTS` leaves RESULTS positional
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->callback([f, &action] { action = [f] { return run_report(*f); }; });
}

}  // namespace rb::bench
