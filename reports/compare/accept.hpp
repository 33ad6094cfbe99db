// Acceptance checks: the `checks` section of an acceptance profile, validated with errors that name
// the file and the JSON path, and evaluated against the runs of a results file. Every matching run
// must meet every check; a check no run matches fails, so a typo in a filter cannot pass a node.
// A run that cannot measure what a check names is N/A with the reason (a bandwidth check against a
// link the run's transfers never crossed; a correctness check of a run that was not checked), never
// PASS: a check whose runs are all N/A is N/A, and a profile fails when its correctness check is
// N/A or when every one of its checks is.
// The sweep part of the profile is parsed by bench::parse_profile (reports/ does not depend on bench/).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results/results_reader.hpp"

namespace rb::reports {

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
  std::optional<double> value;
  std::string measured;           // "0.734", "passed", "run failed: <reason>", "not measured"
  std::optional<double> seconds;  // the run's median pass time, for JUnit's time attribute
};

struct CheckResult {
  CheckSpec spec;
  std::vector<CheckOutcome> outcomes;  // one per matching run, or one failure when none matched
  bool pass() const;                   // no failure (N/A outcomes are not failures)
  bool na() const;                     // every outcome N/A: the check measured nothing
  int failures() const;
  int skipped() const;              // N/A outcomes
  std::string_view result() const;  // "PASS", "FAIL" or "N/A"
  // The outcome furthest from passing (the smallest value under a min, the largest over a max).
  const CheckOutcome& worst() const;
};

struct AcceptReport {
  std::string profile, results_path;
  std::vector<CheckResult> checks;
  // No check failed, the correctness checks measured something, and so did at least one check.
  bool pass() const;
  int failed_checks() const;
  int na_checks() const;
  std::string verdict_reason() const;  // why pass() is false though no check failed; else empty
  nlohmann::json to_json() const;
};

AcceptReport evaluate_checks(const std::string& profile, const std::vector<CheckSpec>& checks,
                             const ResultsFile& results);

// PASS/FAIL per check with measured against required, and the failing runs under a failing check.
std::string format_accept_text(const AcceptReport& report);

}  // namespace rb::reports
