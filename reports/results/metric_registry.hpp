// The one registry of the metrics a results file carries. compare selects one by its short name,
// accept checks any of them by name, trend draws the ones compare can select, and each reads the
// value from a RunRecord through the entry, so adding a metric is one entry here plus its
// computation where the record is written. Each entry names the docs heading that defines it.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/results/run_record.hpp"

namespace rb::reports {

// What a value may depend on beyond the run: accept's comm_bandwidth_fraction holds the bandwidth
// against the check's link when the check names one.
struct MetricContext {
  std::optional<double> link_gbps;
};

struct Metric {
  std::string_view name{};          // as the results file and acceptance profiles name it
  std::string_view compare_name{};  // compare's --metric; empty when compare and trend do not offer it
  std::string_view unit{};
  bool lower_is_better = true;
  std::string_view source{};       // where it is read in a run, as compare's output names it
  std::string_view description{};  // what accept --help lists
  std::string_view docs{};         // where it is defined: "docs/metrics.md#heading-anchor"
  // The metric compare and trend read in this one's place when a run lacks it (imbalance, measured
  // on the run's clocks, falls back to the plan's exact work_imbalance); accept never does.
  std::string_view stand_in{};
  bool comm_clock = false;  // measured on the comm clock: its metrics.comm_basis must agree to compare
  // nullptr for correctness, which is a status, not a number.
  std::optional<double> (*value)(const RunRecord&, const MetricContext&) = nullptr;
  // The metric per timed sample, round by round (round_of_samples' layout); nullptr when the run
  // has one value only.
  std::vector<std::vector<double>> (*rounds)(const RunRecord&) = nullptr;
  // The spread of that day's samples (trend draws it around the point); nullptr where there is none.
  std::optional<std::pair<double, double>> (*spread)(const RunRecord&) = nullptr;
};

// Every metric, in the order accept --help lists them.
std::span<const Metric> all_metrics();
// The metrics compare can select, in the order of its --metric list (and trend's charts).
std::vector<const Metric*> compare_metrics();
// By name; nullptr when none has it.
const Metric* find_metric(std::string_view name);
// By compare's short name; an InputError naming `where` and the choices otherwise.
const Metric& compare_metric(std::string_view compare_name, std::string_view where);

// The metric's value in a run, or its stand-in's with `stood_in` set; nullopt when neither is there.
std::optional<double> value_or_stand_in(const Metric& m, const RunRecord& r, bool* stood_in = nullptr);

}  // namespace rb::reports
