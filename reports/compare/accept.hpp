// Acceptance checks: the `checks` section of an acceptance profile, validated with errors that name
// the file and the JSON path, and evaluated against the runs of a results file. Every matching run
// must meet every check; a check no run matches fails, so a typo in a filter cannot pass a node.
// A run that cannot measure what a check names is N/A with the reason (a bandwidth check against a
// link the run's transfers never crossed; a correctness check of a run that was not checked), never
// PASS: a check whose runs are all N/A is N/A, and a profile fails when its correctness check is
// N/A or when every one of its checks is.
// One failure, one cause: a run that failed fails the correctness check once, with its reason; a
// metric check that needs its measurement gets an error of the run (ERROR), not a threshold miss,
// and a check the plan alone decides is still judged from the plan. Errors fail the profile too,
// but a CI view counts them apart from failures. A sweep that did not run whole (interrupted, killed,
// a configuration short of its rounds) fails the profile whatever its checks say.
// Every report names the node and the time it describes (node_identity.hpp), so outputs of many
// nodes can be told apart.
// The sweep part of the profile is parsed by bench::parse_profile (reports/ does not depend on bench/).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results/node_identity.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::reports {

// The accept JSON's version (reports/compare/accept.schema.json): MAJOR breaks readers, MINOR adds
// fields, PATCH fixes.
inline constexpr const char* kAcceptSchemaVersion = "1.0.0";

struct CheckSpec {
  std::string name;                                 // unique within the profile; names the JUnit testsuite
  std::string metric;                               // one of accept_metric_names()
  std::optional<double> min, max;                   // inclusive bounds; none for "correctness"
  nlohmann::json where = nlohmann::json::object();  // config field -> value or list of values
  std::optional<double> link_gbps;                  // comm_bandwidth_fraction: the link, Gbit/s (else config.link_gbps)
  std::string description;
  std::string json_path;              // "/checks/3", for messages
  std::string required_text() const;  // ">= 0.5", "<= 1.05", "in [a, b]", "pass"
};

// The metrics a check can name, with where each is read from (for --help and docs/profiles.md).
const std::vector<std::pair<std::string, std::string>>& accept_metric_names();

struct AcceptProfile {
  std::string name;
  nlohmann::json sweep_doc;  // {"name", "description", "sweep"}: what bench::parse_profile reads
  std::vector<CheckSpec> checks;
};

// Splits an acceptance profile into its sweep part and its validated checks. Throws InputError
// naming `source` and the JSON path of the bad field.
AcceptProfile parse_accept_profile(const nlohmann::json& doc, const std::string& source);
std::vector<CheckSpec> parse_checks(const nlohmann::json& checks, const std::string& source);

struct CheckOutcome {
  std::string run_id, run_label;  // empty when the check matched no run
  bool pass = false;
  bool na = false;  // the run cannot measure this check (`measured` says why); neither pass nor fail
  // The run failed or was skipped and this check needs what it would have measured: the run's
  // fault, which the correctness check already counts, so here it is neither a pass nor a failure.
  bool error = false;
  std::optional<double> value;
  std::string measured;  // "0.734", "passed", "run failed: <reason>", "not measured (...)", "N/A: <why>"
  // Why the outcome is not a pass, as JUnit's type: "threshold" (a value outside the bounds),
  // "not-measured", "no-match", "correctness" (the output failed the check), "run-failed"; empty
  // for a pass or an N/A.
  std::string cause;
  std::optional<double> seconds;  // the run's median pass time, for JUnit's time attribute
};

struct CheckResult {
  CheckSpec spec;
  std::vector<CheckOutcome> outcomes;  // one per matching run, or one failure when none matched
  bool pass() const;                   // no failure and no error (N/A outcomes are neither)
  bool na() const;                     // every outcome N/A: the check measured nothing
  int failures() const;
  int errors() const;               // runs that failed before measuring what the check reads
  int skipped() const;              // N/A outcomes
  std::string_view result() const;  // "PASS", "FAIL", "ERROR" (errors, no failure) or "N/A"
  // The outcome furthest from passing: a failure (the smallest value under a min, the largest over
  // a max), else the worst measured run, else an error, else an N/A.
  const CheckOutcome& worst() const;
};

// The one line about one outcome that the console (after the run's label) and JUnit (after the
// check's name) both print: "measured 0.4, required >= 0.5", "run failed: <reason>", an N/A's reason.
std::string outcome_text(const CheckSpec& spec, const CheckOutcome& o);

struct AcceptReport {
  std::string profile, results_path;
  NodeIdentity node;                  // the node and the time the results describe
  std::string results_version;        // the file's format version as written (before any conversion)
  std::vector<std::string> backends;  // the runs' backends, each once: "no GPU" is only said of cpu runs
  std::vector<CheckResult> checks;
  // Why the sweep judged is not whole, one line each: it was stopped before its end (results.json's
  // `stopped`: a signal, a fatal error, its A/B driver), or killed (a results.jsonl alone), and every
  // configuration that ran fewer rounds than planned. Any fails the profile: a node is judged on
  // what it was asked to run, never on less.
  std::vector<std::string> incomplete;
  // The sweep ran whole, no check failed or errored, the correctness checks measured something, and
  // so did at least one check.
  bool pass() const;
  int passed_checks() const;
  int failed_checks() const;  // checks with a failure
  int error_checks() const;   // checks with run errors and no failure
  int na_checks() const;
  // Why pass() is false beyond the checks' failures and errors (the sweep is not whole, a correctness
  // check or every check is N/A); else empty.
  std::string verdict_reason() const;
  nlohmann::json to_json() const;
};

AcceptReport evaluate_checks(const std::string& profile, const std::vector<CheckSpec>& checks,
                             const ResultsFile& results);

// The node and the run's time, then PASS/FAIL/ERROR/N/A per check with measured against required,
// and under a check the runs that failed or errored, and its N/A runs unless every run is N/A for
// one reason (accept_format.cpp).
std::string format_accept_text(const AcceptReport& report);

}  // namespace rb::reports
