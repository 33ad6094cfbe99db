// The asv-style trend view of a nightly history: a history directory holds one results file per
// date (YYYY-MM-DD*.json, as scripts/nightly.sh writes them); for every configuration (config id)
// each metric becomes a series against the date, in which step detection (reports/compare/step_detect.hpp)
// finds the nights where the level changed, naming the commits on either side.
//
// The page leads with what changed. At the very top, tonight's commit and the baseline's; then one
// sentence per change (trend_changes): the steps of one metric grouped by night and commit range,
// ranked by size; the machine probe's own series, so a step in it shows beside same-night steps
// elsewhere; tonight's compare verdicts (when given); and the steps found, regressions first, each
// linking to its configuration's charts. The charts follow, grouped by
// shape, each scaled to the change relative to its configuration's median. No JavaScript and no
// network: hovering a point shows its value through SVG <title>.
//
// trend_fragment() is the piece the HTML report embeds; trend_page() wraps it into the standalone
// page of `ringbench trend`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results/record_config.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::reports {

struct TrendPoint {
  std::string date;  // YYYY-MM-DD
  double value = 0;
  std::optional<double> lo, hi;  // spread of the samples that day, where the metric has samples
};

// Where a series changed level: the first night of the new level and the last of the old, with
// the commits that built them (results.json's tool.git_sha), so the change lies in that range.
struct TrendStep {
  std::string date, previous_date;
  std::string commit, previous_commit;
  double before = 0, after = 0;  // the levels (medians of the nights on either side)
  double change = 0;             // (after - before) / |before|
  bool beyond_threshold = false;
  bool regression = false;  // beyond the threshold, in the metric's worse direction
};

struct TrendSeries {
  std::string metric, unit;
  bool lower_is_better = true;
  std::vector<TrendPoint> points;  // ascending date; a date where the run is absent or not ok has none
  std::vector<TrendStep> steps;
  std::optional<double> baseline;  // the compare baseline's value, when the trend was given one
};

struct TrendConfig {
  std::string id, label;
  RecordConfig config;              // for grouping by shape
  std::vector<TrendSeries> series;  // only metrics with at least one point
};

struct History {
  std::vector<std::string> dates;  // ascending, one per results file
  std::vector<std::string> files;
  std::vector<std::string> commits;  // per date: tool.git_sha, or "unknown"
  std::vector<TrendConfig> configs;  // in order of first appearance
  double threshold = 0.05;           // a step beyond it counts
  nlohmann::json tonight;            // `compare --json-out` of tonight against the baseline, or null
  std::string metric = "median_ms";  // the metric the lead sentences count (trend --metric)
  // The machine probe (timing.machine_probe_ms) as a series of its own: per night the median over
  // the night's ok runs of each run's mean probe time, with its steps. Only runs of the probe
  // version the last probed night used, since versions time different work. nullopt when no run
  // carries a probe (GPU results).
  std::optional<TrendSeries> probe;
  int probe_version = 0;                       // timing.machine_probe_version of its points
  std::optional<std::string> baseline_commit;  // the --baseline file's tool.git_sha (or "unknown")
  // Commits print with this many leading characters: 7, more where two commits of the history
  // (or the baseline) would share them.
  std::size_t commit_digits = 7;
};

struct DatedResults {
  std::string date;  // YYYY-MM-DD
  ResultsFile results;
};

// Reads every *.json in `dir` (each named YYYY-MM-DD, optionally followed by more, e.g.
// 2024-05-01.json or 2024-05-01-h100.json) with read_results. Throws InputError for a missing or
// empty directory, a .json file whose name does not start with a date, or two files of one date.
// Steps count when they change the level by more than `threshold` (relative).
History load_history(const std::filesystem::path& dir, double threshold = 0.05);
History build_history(std::vector<DatedResults> files, double threshold = 0.05);

// Marks each series (and the machine probe's) with the baseline run's value of its metric (drawn as
// a dashed line), and takes the baseline's commit for the top of the page.
void set_baseline(History& h, const ResultsFile& baseline);
// Attaches tonight's verdicts: a `ringbench compare --json-out` document (InputError naming
// `source` when it is not one).
void set_tonight(History& h, const nlohmann::json& compare, const std::string& source);

// One change of the history: the steps of h.metric beyond the threshold that landed on one night
// between one pair of commits, going one way. A night where some configurations went the worse
// way and others the better way is two changes.
struct TrendChange {
  std::string date, previous_date;  // the first night of the new level, and the night before it
  std::string commit, previous_commit;
  bool regression = false;             // the metric's worse way
  std::size_t stepped = 0;             // configurations whose series stepped there, this way
  std::size_t of = 0;                  // configurations with a point of the metric on both nights
  double change = 0;                   // the median of their steps' changes
  std::optional<double> probe_change;  // the machine probe's step beyond the threshold that night
  std::vector<std::string> ids;        // the configurations that stepped, in the history's order
  // How the changes are ranked: stepped * |change|, the share of the sweep moved times how far.
  double size() const;
};

// The changes of h.metric, largest first (by size(); equal sizes: regressions first, then the later
// night first).
std::vector<TrendChange> trend_changes(const History& h);
// "12 of 36 configurations became +15% slower between 3333333 and 4444444 (night 2026-11-28)",
// with "; the machine probe stepped +20% the same night" inside the parentheses where it did. The
// time reads slower/faster; another metric names itself and reads worse/better.
std::string change_sentence(const History& h, const TrendChange& c);
// "Tonight's commit 4444444 (night 2026-11-30); the baseline's 1111111." Without --baseline, the
// commit the history starts at stands in its place, and the sentence says so.
std::string commits_sentence(const History& h);
// "None of 36 configurations became slower or faster by more than ±5% over 6 nights."
std::string no_change_sentence(const History& h);
// What the page, the text output and the JSON lead with: commits_sentence, then one sentence per
// change, or no_change_sentence.
std::vector<std::string> lead_sentences(const History& h);
// "The machine probe stepped +20% between 3333333 and 4444444 (night 2026-11-28)."
std::string probe_sentence(const History& h, const TrendStep& t);
// A commit as the page prints it (h.commit_digits characters); "unknown" stays.
std::string short_commit(const History& h, const std::string& sha);

// Every step beyond the threshold, regressions first, then by the size of the change.
struct StepRef {
  const TrendConfig* config;
  const TrendSeries* series;
  const TrendStep* step;
};
std::vector<StepRef> steps_by_severity(const History& h);

// "2024-05-01" → days since 1970-01-01; nullopt when it is not a valid calendar date.
std::optional<long> parse_date(const std::string& s);

// An HTML fragment (<section class="rb-trend">, its own <style> inside): the table of what changed,
// then one block per configuration, grouped by shape, one chart per metric. Self-contained; safe
// to paste into any HTML body.
std::string trend_fragment(const History& h);
// A whole HTML page around trend_fragment().
std::string trend_page(const History& h, const std::string& title);

nlohmann::json to_json(const History& h);

}  // namespace rb::reports
