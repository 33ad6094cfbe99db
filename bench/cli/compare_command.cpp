// `ringbench compare BASE NEW`: run-by-run verdicts between two results files (reports/compare/compare.hpp),
// as a text table, JSON and an HTML diff. Exit 1 on any regression, 0 otherwise, 2 on bad input;
// docs/compare.md states the decision rule.
#include <memory>
#include <string>

#include <fmt/format.h>

#include "bench/cli/command.hpp"
#include "bench/cli/number_flag.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/output_file.hpp"
#include "reports/compare/compare.hpp"
#include "reports/compare/compare_format.hpp"
#include "reports/compare/compare_repeat.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::bench {
namespace {

struct CompareFlags {
  std::string base, neu;
  std::string metric = "time";
  double alpha = 0.05;
  std::string threshold = "5%";
  bool allow_different_devices = false;
  bool allow_underpowered = false;
  bool json = false;
  std::string json_out, html_out;
  std::string repeat_of;  // the first compare's JSON, when this pair measures its SLOWER again
};

int run_compare(const CompareFlags& f) {
  reports::CompareOptions opts;
  opts.metric = reports::parse_compare_metric(f.metric, "--metric");
  opts.alpha = f.alpha;
  opts.threshold = reports::parse_threshold(f.threshold, "--threshold");
  opts.allow_different_devices = f.allow_different_devices;
  opts.allow_underpowered = f.allow_underpowered;
  if (!f.html_out.empty()) check_output_file("--html", f.html_out);
  if (!f.json_out.empty()) check_output_file("--json-out", f.json_out);
  check_outputs_apart({{"BASE", f.base}, {"NEW", f.neu}}, {{"--html", f.html_out}, {"--json-out", f.json_out}});
  reports::FirstCompare first;
  if (!f.repeat_of.empty()) {
    check_outputs_apart({{"--repeat-of", f.repeat_of}}, {{"--html", f.html_out}, {"--json-out", f.json_out}});
    first = reports::read_first_compare(f.repeat_of, "--repeat-of", *opts.metric);
  }
  const auto base = reports::read_results(f.base);
  const auto neu = reports::read_results(f.neu);
  reports::refuse_emulated_timings(base, "compare");
  reports::refuse_emulated_timings(neu, "compare");
  for (const auto& n : base.notes) print_quietly(stderr, fmt::format("ringbench: note: {}\n", n));
  for (const auto& n : neu.notes) print_quietly(stderr, fmt::format("ringbench: note: {}\n", n));
  auto cmp = reports::compare_results(base, neu, opts);
  if (!f.repeat_of.empty()) reports::apply_repeat(cmp, first, f.repeat_of);

  if (!f.html_out.empty()) write_output_file("--html", f.html_out, reports::format_compare_html(cmp));
  if (!f.json_out.empty()) write_output_file("--json-out", f.json_out, json_text(cmp.to_json(), 2) + "\n");
  if (f.json)
    print_quietly(stdout, fmt::format("{}\n", json_text(cmp.to_json(), 2)));
  else
    print_quietly(stdout, fmt::format("{}", reports::format_compare_text(cmp)));
  return cmp.regression() ? kExitCheckFailed : kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<CompareFlags>();
  CLI::App* sub = app.add_subcommand("compare",
                                     "Compare two results files run by run (matched by config id); exit 1 on a "
                                     "regression, 0 otherwise, 2 on bad input");
  sub->add_option("base", f->base, "BASE results.json (or results.jsonl): the baseline")->required();
  sub->add_option("new", f->neu, "NEW results.json (or results.jsonl): the candidate")->required();
  sub->add_option("--metric", f->metric, "time (median, default), tflops, overlap, exposed_comm or imbalance")
      ->capture_default_str();
  add_number_flag(sub, "--alpha", f->alpha, NumberRange{.lo = 0, .hi = 1, .lo_open = true, .hi_open = true},
                  "False-discovery rate over the compare's configurations (Benjamini-Hochberg; docs/compare.md)",
                  "ALPHA")
      ->capture_default_str();
  // Read when parsed, so a bad value is refused before any file is read; kept as written for --help.
  add_read_flag<std::string>(
      sub, "--threshold", f->threshold,
      [](const std::string& t) {
        reports::parse_threshold(t, "--threshold");
        return t;
      },
      "Relative change below which a run is SAME (5% or 0.05)", "REL")
      ->capture_default_str();
  sub->add_option("--repeat-of", f->repeat_of,
                  "The first compare's JSON (--json-out) whose SLOWER configurations this pair measured again: a "
                  "SLOWER is a regression only where it was SLOWER there too")
      ->type_name("FILE");
  sub->add_flag("--allow-different-devices", f->allow_different_devices,
                "Compare even when hostname, CPU model or GPUs differ between the files");
  sub->add_flag("--allow-underpowered", f->allow_underpowered,
                "Exit 0 on UNDERPOWERED: a change beyond the threshold that too few samples can never confirm");
  sub->add_flag("--json", f->json, "Print the comparison as JSON on stdout instead of the table");
  sub->add_option("--json-out", f->json_out, "Also write the comparison as JSON to this file");
  sub->add_option("--html", f->html_out, "Also write a self-contained HTML diff to this file");
  sub->callback([f, &action] { action = [f] { return run_compare(*f); }; });
}

}  // namespace rb::bench
