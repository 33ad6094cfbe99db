// `ringbench accept PROFILE`: runs an acceptance profile's sweep (or reads --results), evaluates its
// checks (reports/compare/accept.hpp), prints the node and PASS/FAIL/ERROR per check with measured
// against required, and writes JUnit XML for CI. Exit 1 on any FAIL or ERROR (a run that failed) or a
// sweep that did not run whole, 0 when the profile passes, 2 on bad input, 128 + N when signal N
// interrupted the sweep it ran (the JUnit is written all the same, failing).
#include <memory>

#include <fmt/format.h>

#include "bench/cli/command.hpp"
#include "bench/sweep/environment.hpp"
#include "bench/sweep/profile.hpp"
#include "bench/sweep/run_options.hpp"
#include "bench/sweep/sweep_configurations.hpp"
#include "bench/sweep/sweep_pipeline.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/json_input.hpp"
#include "common/json_output.hpp"
#include "common/output_file.hpp"
#include "reports/compare/accept.hpp"
#include "reports/compare/accept_sweep.hpp"
#include "reports/compare/junit.hpp"
#include "reports/results/config_json.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::bench {
namespace {

struct AcceptFlags {
  std::string profile;
  std::string results;
  std::string out = "accept-results";
  std::string junit;
  bool json = false;
  bool no_cupti = false;  // as `run --no-cupti`: leaves CUPTI to Nsight Systems (scripts/nsys.sh passes it)
  std::string kernel;     // as `run --kernel`: the same sweep and checks on another attention kernel
  std::vector<std::string> argv;
};

int run_accept(const AcceptFlags& f) {
  const auto profile = reports::parse_accept_profile(read_json_file(f.profile, "profile", "an acceptance profile",
                                                                    JsonLimits{.whole_numbers_as_integers = true}),
                                                     f.profile);
  // The sweep is validated even with --results, so a broken profile never passes a node.
  SweepSpec spec = parse_profile(profile.sweep_doc, f.profile);
  if (!f.kernel.empty()) set_sweep_axis(spec, "kernel", f.kernel, FieldOrigin{"", "--kernel"});
  if (!f.junit.empty()) check_output_file("--junit", f.junit);
  // With --results nothing is measured, so --out is not written; else the sweep writes there.
  std::vector<NamedPath> outputs = f.results.empty() ? reports::sweep_outputs("--out", f.out)
                                                     : std::vector<NamedPath>{};
  outputs.push_back({"--junit", f.junit});
  check_outputs_apart({{"profile", f.profile}, {"--results", f.results}}, outputs);

  std::filesystem::path results_path = f.results;
  int interrupted_by = 0;
  if (results_path.empty()) {
    check_output_dir("--out", f.out);
    RunOptions opts;
    opts.out_dir = f.out;
    opts.argv = f.argv;
    opts.cupti = !f.no_cupti;
    if (spec.rounds) opts.rounds = *spec.rounds;
    const SweepOutcome res = run_sweep(spec, opts);
    print_quietly(stderr, fmt::format("ringbench: {} ok, {} failed, {} skipped{}\n", res.ok, res.failed, res.skipped,
                                      res.stopped.empty() ? "" : " (" + res.stopped + ")"));
    results_path = res.results_json;
    interrupted_by = res.interrupted_by;
  }
  const auto results = reports::read_results(results_path);
  reports::refuse_emulated_timings(results, "accept");
  // The checks mean something over the profile's configurations only: --results of another sweep is
  // refused, naming the first difference (a sweep that did not finish is a subset, INCOMPLETE below).
  if (!f.results.empty()) {
    std::vector<nlohmann::json> sweep;
    for (const Config& c : expand_configurations(spec)) sweep.push_back(reports::to_json(c));
    reports::check_results_ran_sweep(results, sweep, f.profile);
  }
  for (const auto& n : results.notes) print_quietly(stderr, fmt::format("ringbench: note: {}\n", n));
  const auto report = reports::evaluate_checks(profile.name, profile.checks, results);

  if (!f.junit.empty()) write_output_file("--junit", f.junit, reports::junit_xml(report));
  if (f.json)
    print_quietly(stdout, fmt::format("{}\n", json_text(report.to_json(), 2)));
  else
    print_quietly(stdout, fmt::format("{}", reports::format_accept_text(report)));
  // A sweep cut short fails the node (report.incomplete says why, in the JUnit too); a signal that
  // cut it here keeps its meaning in the exit code, as `run`'s does.
  if (interrupted_by) return 128 + interrupted_by;
  return report.pass() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_accept_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<AcceptFlags>();
  std::string metrics;
  for (const auto& [name, field] : reports::accept_metric_names()) metrics += (metrics.empty() ? "" : ", ") + name;
  CLI::App* sub = app.add_subcommand(
      "accept",
      "Run an acceptance profile and check its thresholds (PASS/FAIL per check, JUnit XML); exit 1 on any FAIL or "
      "run error");
  sub->footer("Check metrics: " + metrics + ". See docs/profiles.md.");
  sub->add_option("profile", f->profile, "Acceptance profile JSON: name, description, sweep, checks")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--results", f->results, "Evaluate this results.json instead of running the sweep")
      ->check(CLI::ExistingFile);
  sub->add_option("--out", f->out, "Output directory of the sweep's results")->capture_default_str();
  sub->add_option("--junit", f->junit, "Write JUnit XML (one testsuite per check) to this file");
  sub->add_flag("--json", f->json,
                "Print the outcome as JSON (reports/compare/accept.schema.json) instead of the PASS/FAIL lines");
  sub->add_flag("--no-cupti", f->no_cupti,
                "Leave CUPTI off so Nsight Systems can attach (as for run; scripts/nsys.sh passes it)");
  sub->add_option("--kernel", f->kernel,
                  "Run the profile's sweep on this attention kernel (ringbench, cudnn, auto), as run --kernel");
  sub->callback([f, &action] {
    f->argv = command_line();
    action = [f] { return run_accept(*f); };
  });
}

}  // namespace rb::bench
