// Comparing two results files run by run: the runs are matched by config id, one metric is read
// from each, and each pair gets a verdict that combines a relative threshold with a rank test on
// the samples, the way Google Benchmark's compare.py and asv separate a change from noise, at a
// level that controls the false-discovery rate over the whole compare (error_rate.hpp). Two files
// measured as an A/B pair (`ringbench ab`) are tested round by round (signed_rank.hpp); files
// measured apart with the plain U test, and a single run's witnesses (fresh executors, the machine
// probe, its cores, its rounds) may still call a change NOISY. docs/compare.md states the rule;
// test_pair() and decide() below are its one implementation.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/compare/error_rate.hpp"
#include "reports/compare/mann_whitney.hpp"
#include "reports/compare/signed_rank.hpp"
#include "reports/results/metric_registry.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/run_record.hpp"

namespace rb::reports {

// The version of compare's JSON (`--json-out`; docs/compare.md), which trend and `--repeat-of` read.
inline constexpr const char* kCompareSchemaVersion = "0.5.0";

// compare's --metric: one of the registry's metrics that compare offers (metric_registry.hpp).
const Metric* parse_compare_metric(std::string_view s, std::string_view where);
// "5%" or "0.05": a relative threshold, as a fraction; InputError naming `flag` otherwise.
double parse_threshold(const std::string& s, const std::string& flag);
// What compare prints as the metric's source: its own, and its stand-in's where it has one.
std::string metric_source(const Metric& m);

// FASTER and SLOWER mean better and worse in the metric's own direction (more TFLOP/s is FASTER).
// UNDERPOWERED: a change beyond the threshold that the sample counts can never confirm (3 against
// 3 samples: p >= 0.1 whatever happened); a regression unless allowed, since the gate is blind.
// FAILED: the run is not ok in NEW; it is a regression when it was ok in BASE.
enum class Verdict { same, faster, slower, noisy, underpowered, missing, added, failed };
// Every verdict, in the order summaries list them.
inline constexpr Verdict kVerdicts[] = {Verdict::same,         Verdict::faster,  Verdict::slower, Verdict::noisy,
                                        Verdict::underpowered, Verdict::missing, Verdict::added,  Verdict::failed};
std::string_view to_string(Verdict v);  // SAME, FASTER, SLOWER, NOISY, UNDERPOWERED, MISSING, NEW, FAILED

struct CompareOptions {
  const Metric* metric = &compare_metric("time", "--metric");
  double alpha = 0.05;      // significance level of the U test
  double threshold = 0.05;  // relative change below which a run is SAME, whatever the test says
  bool allow_different_devices = false;
  bool allow_underpowered = false;  // UNDERPOWERED is then no regression
};

// One side of a comparison: the metric's value and, where the metric has them, its samples.
struct MetricValue {
  std::optional<double> value;
  std::vector<double> samples;              // empty for single-valued metrics (overlap, exposed comm, imbalance)
  std::vector<std::vector<double>> rounds;  // the samples by round, in run order
  std::string note;                         // e.g. which field stood in for a missing one
  // (max - min) / median of the per-round medians, when the samples came from several fresh
  // executors (timing.rounds > 1): how far one instance of the same build can sit from another.
  std::optional<double> instance_spread;
  // The median of each round's samples (for time and TFLOP/s), in run order; one entry when the
  // run had one round.
  std::vector<double> round_medians;
  // Mean of timing.machine_probe_ms (bench/sweep/machine_probe.hpp), when the run carries it: the time of
  // a fixed workload around the configuration, i.e. how fast the machine itself was.
  std::optional<double> machine_probe_ms;
  int machine_probe_version = 1;  // timing.machine_probe_version; absent before 0.3.0 (version 1)
  // cpu runs: timing.cpu_binding, "none" where the file predates it (2.4.0); "" for other backends.
  std::string cpu_binding;
  // Median of timing.machine_probe_core_spread: how far the machine's cores differed in speed
  // while the configuration ran (bench/sweep/machine_probe.hpp). The median, because one probe in a
  // dozen differs by 15% on a quiet VM, while a host that slows a vCPU does so for seconds.
  std::optional<double> core_spread;
  // metrics.comm_basis for the comm metrics (overlap, exposed comm): "execution" or "in_flight".
  std::string comm_basis;
  // cuda: when NVML saw heat or power hold a GPU's clock down around the run (gpu_state).
  std::optional<std::string> gpu_held_down;
};
MetricValue read_metric(const RunRecord& run, const Metric& m);

struct RunComparison {
  std::string id, label;
  std::string base_status, new_status;  // "ok", "failed", "skipped", or "" when absent
  MetricValue base, neu;
  // (new − base) / base; when `paired`, exp(Hodges-Lehmann over the rounds' log ratios) − 1
  std::optional<double> change;
  std::optional<double> p_value;
  std::optional<double> min_p;  // the smallest p the test could give with these samples
  bool paired = false;          // tested round by round, as an A/B pair
  double level = 0;             // the corrected level it was judged at
  // (new − base) / base of the machine probe, when both have it and from the same probe version
  std::optional<double> machine_change;
  UTestMethod method = UTestMethod::none;
  Verdict verdict = Verdict::same;
  std::optional<Verdict> first_verdict;  // with --repeat-of: this run's verdict in the first compare
  bool regression = false;
  std::string note;  // why, when the verdict needs a reason (too few samples, threshold only, ...)
};

// The decision rule for one matched pair of ok runs (both values present), in two steps: what the
// samples say (the change, and p by the paired test when `paired` or the U test otherwise), then,
// once every pair's p is known, the verdict at the family's level.
void test_pair(RunComparison& rc, bool paired);
void decide(RunComparison& rc, const CompareOptions& opts, const FamilyLevel& family);

struct Comparison {
  std::string base_path, new_path;
  CompareOptions options;
  bool paired = false;              // the files are an A/B pair (the same pairing.pair_id)
  std::string repeat_of;            // --repeat-of: the first compare's JSON, whose SLOWER this pair repeats
  FamilyLevel family;               // Benjamini–Hochberg over every pair with samples
  std::vector<RunComparison> runs;  // BASE's order, then runs only in NEW in NEW's order
  // Ids recorded as a c = 1 alias in either file (results 2.6.0): the same measurement as another
  // configuration, left out so that it is compared, and counted in the error rate, once.
  std::vector<std::string> aliases;
  int count(Verdict v) const;
  bool regression() const;
  nlohmann::json to_json() const;
};

// Throws InputError when the files come from different devices (hostname, CPU model or GPUs differ)
// and opts.allow_different_devices is false. A field absent from either header is not compared.
void check_same_device(const ResultsFile& base, const ResultsFile& neu);

Comparison compare_results(const ResultsFile& base, const ResultsFile& neu, const CompareOptions& opts);

}  // namespace rb::reports
