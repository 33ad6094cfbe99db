// The asv-style trend view: a history directory holds one results file per date
// (YYYY-MM-DD*.json, as scripts/nightly.sh writes them); for every configuration (config id) each
// metric is drawn against the date as a small inline SVG chart, the median time with a min–p90 bar.
// No JavaScript and no network: hovering a point shows its value through SVG <title>.
//
// trend_fragment() is the piece the HTML report embeds ("given a history, the report gains a
// trend view"); trend_page() wraps it into the standalone page of `ringbench trend`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results_reader.hpp"

namespace rb::reports {

struct TrendPoint {
  std::string date;              // YYYY-MM-DD
  double value = 0;
  std::optional<double> lo, hi;  // spread of the samples that day, where the metric has samples
};

struct TrendSeries {
  std::string metric, unit;
  bool lower_is_better = true;
  std::vector<TrendPoint> points;  // ascending date; a date where the run is absent or not ok has none
};

struct TrendConfig {
  std::string id, label;
  std::vector<TrendSeries> series;  // only metrics with at least one point
};

struct History {
  std::vector<std::string> dates;  // ascending, one per results file
  std::vector<std::string> files;
  std::vector<TrendConfig> configs;  // in order of first appearance
};

struct DatedResults {
  std::string date;  // YYYY-MM-DD
  ResultsFile results;
};

// Reads every *.json in `dir` (each named YYYY-MM-DD, optionally followed by more, e.g.
// 2024-05-01.json or 2024-05-01-h100.json) with read_results. Throws InputError for a missing or
// empty directory, a .json file whose name does not start with a date, or two files of one date.
History load_history(const std::filesystem::path& dir);
History build_history(std::vector<DatedResults> files);

// "2024-05-01" → days since 1970-01-01; nullopt when it is not a valid calendar date.
std::optional<long> parse_date(const std::string& s);

// An HTML fragment (<section class="rb-trend">, its own <style> inside) with one block per
// configuration and one chart per metric. Self-contained; safe to paste into any HTML body.
std::string trend_fragment(const History& h);
// A whole HTML page around trend_fragment().
std::string trend_page(const History& h, const std::string& title);

nlohmann::json to_json(const History& h);

}  // namespace rb::reports
