// `ringbench fleet`: many nodes' results files judged against each other (docs/fleet.md). Each node
// and each GPU gets, per metric, its standing against the fleet: for every configuration the fleet
// shares, its value over the fleet's median value of that configuration, and over configurations the
// median of those ratios ("relative": 1 is the fleet's median; 1.08 is 8% slower on a time, 0.92 8%
// less on a rate; `shortfall` says how much worse in the metric's direction). Over the fleet's relatives, the median
// and the median absolute deviation (MAD, scaled by 1.4826 to estimate a standard deviation) give a robust spread; a
// node or GPU is an outlier when it is worse than the median by more than `max_shortfall`, or worse by more than
// `spreads` robust spreads and by at least `min_shortfall`. Per-GPU figures come from the runs'
// per-rank metrics, each rank named by the GPU that ran it (`placement`, results 2.5.0; on the cpu
// backend a rank stands in for a GPU), each against the same rank of the same configuration on the
// other nodes, with its node's own level taken out: a slow node is named once, as a node, and a GPU
// when it is the odd one out of its node.
// A node is judged on what it was given, never on less: one that failed every configuration, failed
// one the others ran ok, did not finish its sweep (`stopped`, or a results.jsonl alone), or reports a
// figure of 0 is an outlier by name whatever the fleet's size, and the rest are judged over the
// configurations ok on every node not so named.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results/node_identity.hpp"
#include "reports/results/results_reader.hpp"

namespace rb::reports {

struct FleetOptions {
  double max_shortfall = 0.05;  // worse than the median by more than this fraction: an outlier
  double spreads = 5.0;         // or worse by more than this many robust spreads ...
  double min_shortfall = 0.04;  // ... and by at least this fraction (a tight fleet names no 1%)
  int min_nodes = 5;            // fewer: the fleet is too small to judge (N/A)
};

// One metric the fleet compares, from the registry in fleet.cpp.
struct FleetMetricInfo {
  std::string name;         // "pass_time", "attention_tflops", "comm_bandwidth"
  std::string title, unit;  // "pass time", "ms"
  bool higher_is_better = false;
  bool per_gpu = false;  // also read per rank
};

// A node's or a GPU's standing on one metric.
struct FleetPoint {
  std::string node;        // hostname
  std::string gpu;         // GPU UUID (cpu: "rank R"); empty for the node's own figure
  std::vector<int> ranks;  // the ranks this GPU ran, over the configurations read
  // Median over configurations of value / fleet median; 1 is the median. A GPU's is over the
  // median of its node's GPUs' (its node's level taken out): 0.5 is half of what its siblings do.
  double relative = 1.0;
  double shortfall = 0.0;  // how much worse than the fleet median, as a fraction (negative: better)
  double spreads = 0.0;    // the shortfall in robust spreads (0 when the spread is 0)
  int configurations = 0;  // configurations the figure is a median over
  bool outlier = false;
  std::string why;  // "8.1% slower than the fleet median (limit 5%)"
};

struct FleetMetricResult {
  FleetMetricInfo metric;
  double median = 1.0;  // of the nodes' relatives (the GPUs': gpu_median)
  double spread = 0.0;  // 1.4826 x MAD of the nodes' relatives
  double gpu_median = 1.0, gpu_spread = 0.0;
  // The relative at which a point becomes an outlier on the worse side (below for higher-is-better,
  // above otherwise), for nodes and for GPUs: the edge of the band the page shades.
  double node_limit = 0.95, gpu_limit = 0.95;
  std::vector<FleetPoint> nodes, gpus;  // in the order of FleetReport::nodes
};

// One node of the fleet: its identity and where it stands overall.
struct FleetNode {
  NodeIdentity identity;
  std::string file;                   // the results file read for it (the newest, where a node sent several)
  double worst_shortfall = 0;         // over metrics and its GPUs: how far it sits from the fleet, worse side
  std::string worst_metric;           // the metric's title, and the GPU's UUID in brackets where a GPU was worst
  bool outlier = false;               // the node or one of its GPUs is
  std::vector<std::string> findings;  // one line per outlier figure: "comm bandwidth: GPU GPU-… (rank 1) 50.0% below …"
};

// A node that sent files from different days, compared with itself: earliest against newest.
struct FleetDrift {
  std::string node;
  std::string from_file, to_file, from_utc, to_utc;
  std::string metric;
  double change = 0;    // relative change of the node's own median value, newest over earliest, minus 1
  bool beyond = false;  // worse by more than max_shortfall
};

struct FleetReport {
  FleetOptions options;
  std::string profile, gpu_model, tool_major;  // what every input shares
  bool judged = false;                         // enough nodes with an ok run to name outliers by the spread
  std::string na_reason;                       // why not judged: "4 nodes: too few to judge outliers (5 or more)"
  std::vector<FleetNode> nodes;                // sorted: outliers first, then by worst_shortfall
  std::vector<FleetMetricResult> metrics;
  std::vector<FleetDrift> drift;
  std::vector<std::string> notes;  // files converted on read, identity fields missing, configurations left out

  int outlier_count() const;
};

// The metrics the fleet compares, in order.
const std::vector<FleetMetricInfo>& fleet_metrics();

// Results files under each path: a file is read as it is; a folder is searched (recursively) for
// results.json, and for results.jsonl where no results.json sits beside it (a killed node: its
// records' placement names the host; without one it is refused). InputError for a path that does
// not exist or a folder holding none.
std::vector<std::string> fleet_inputs(const std::vector<std::string>& paths);

// Judges the fleet. InputError (exit 2, one line) on mixed inputs: different profiles, GPU models or
// tool major versions, naming the two files and the values.
FleetReport judge_fleet(const std::vector<ResultsFile>& files, const FleetOptions& options);

nlohmann::json to_json(const FleetReport& report);
// The console table, outliers first.
std::string format_fleet_text(const FleetReport& report);
// JUnit XML: one testsuite, one testcase per node, failing the outliers (skipped when not judged).
std::string fleet_junit_xml(const FleetReport& report);
// A self-contained HTML page: one strip chart per metric, every node a point with its GPUs beside it,
// the fleet's band shaded, outliers labelled; a table of nodes sorted by distance from the fleet.
std::string fleet_html(const FleetReport& report);

}  // namespace rb::reports
