// `ringbench fleet PATH...`: many nodes' results judged against each other (reports/fleet/fleet.hpp,
// docs/fleet.md). Prints the outliers and a table of nodes; writes JSON, JUnit and an HTML page on
// request. Exit 1 when a node or GPU is an outlier, or a node failed what it was given (every
// configuration, one the others ran ok, or its sweep did not finish), 0 otherwise (a fleet too small
// to judge is N/A, not PASS, and exits 0), 2 on bad input.
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "bench/cli/command.hpp"
#include "bench/cli/number_flag.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/output_file.hpp"
#include "reports/fleet/fleet.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::bench {
namespace {

struct FleetFlags {
  std::vector<std::string> paths;
  std::string junit, html, json_out;
  bool json = false;
  reports::FleetOptions options;
};

int run_fleet(const FleetFlags& f) {
  if (f.options.min_shortfall > f.options.max_shortfall)
    throw InputError("--min-shortfall", fmt::format("{:g}", f.options.min_shortfall),
                     fmt::format("must not exceed --max-shortfall ({:g}): the spread rule would then never name an "
                                 "outlier the fraction rule does not",
                                 f.options.max_shortfall));
  for (const auto& [flag, path] : {std::pair{"--junit", f.junit}, {"--html", f.html}, {"--json-out", f.json_out}})
    if (!path.empty()) check_output_file(flag, path);
  // A file written into a node's folder would be read as that node by the next fleet.
  std::vector<NamedPath> inputs;
  for (const auto& p : f.paths) {
    std::error_code ec;
    inputs.push_back({"paths", p, std::filesystem::is_directory(p, ec) ? PathKind::folder : PathKind::file});
  }
  check_outputs_apart(inputs, {{"--junit", f.junit}, {"--html", f.html}, {"--json-out", f.json_out}});
  std::vector<reports::ResultsFile> files;
  for (const auto& p : reports::fleet_inputs(f.paths)) {
    files.push_back(reports::read_results(p));
    reports::refuse_emulated_timings(files.back(), "fleet");
    for (const auto& n : files.back().notes) print_quietly(stderr, fmt::format("ringbench: note: {}: {}\n", p, n));
  }
  const reports::FleetReport rep = reports::judge_fleet(files, f.options);
  if (!f.junit.empty()) write_output_file("--junit", f.junit, reports::fleet_junit_xml(rep));
  if (!f.html.empty()) write_output_file("--html", f.html, reports::fleet_html(rep));
  if (!f.json_out.empty()) write_output_file("--json-out", f.json_out, json_text(reports::to_json(rep), 2) + "\n");
  if (f.json)
    print_quietly(stdout, fmt::format("{}\n", json_text(reports::to_json(rep), 2)));
  else
    print_quietly(stdout, reports::format_fleet_text(rep));
  // Outliers by the fleet's spread are named only when it is judged; a node that failed what it was
  // given is named whatever the fleet's size.
  return rep.outlier_count() > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void add_fleet_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<FleetFlags>();
  CLI::App* sub = app.add_subcommand(
      "fleet", "Judge many nodes' results against each other: the slow node and the slow GPU (exit 1 on an outlier)");
  sub->footer(
      "Reads results.json files, or folders searched for them (ringbench accept --out NODE_DIR on every node). "
      "See docs/fleet.md.");
  sub->add_option("paths", f->paths, "Results files, or folders holding them")
      ->required()
      ->check(CLI::Validator(
          [](std::string& p) {
            std::error_code ec;
            return existing_path_problem(p, std::filesystem::is_directory(p, ec));
          },
          "PATH"));
  sub->add_flag("--json", f->json, "Print the verdict as JSON instead of the table");
  sub->add_option("--json-out", f->json_out, "Also write the JSON to this file");
  sub->add_option("--junit", f->junit, "Write JUnit XML: one testcase per node, failing the outliers");
  sub->add_option("--html", f->html, "Write the fleet page: a strip chart per metric and the nodes by distance");
  add_number_flag(sub, "--max-shortfall", f->options.max_shortfall, NumberRange{0.0, 1.0, false, false},
                  "An outlier: worse than the fleet median by more than this fraction", "FRACTION")
      ->capture_default_str();
  add_number_flag(sub, "--spreads", f->options.spreads, NumberRange{0.0, 1e3, false, true},
                  "... or by more than this many robust spreads (1.4826 x MAD) ...", "K")
      ->capture_default_str();
  add_number_flag(sub, "--min-shortfall", f->options.min_shortfall, NumberRange{0.0, 1.0, true, false},
                  "... and by at least this fraction", "FRACTION")
      ->capture_default_str();
  add_integer_flag(sub, "--min-nodes", f->options.min_nodes, 3, 100000,
                   "Fewer nodes than this: too few to judge outliers (N/A)")
      ->capture_default_str();
  sub->callback([f, &action] { action = [f] { return run_fleet(*f); }; });
}

}  // namespace rb::bench
