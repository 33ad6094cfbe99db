// The record stage of a sweep, which owns its outputs. Opening it locks the output folder (only
// once the sweep is known to be valid, so bad input leaves no folder behind) and starts
// results.jsonl; every round's record so far is appended and flushed there, so that a kill loses
// nothing measured; progress goes to stderr; finishing writes results.json and report.html while
// the lock is still held. On MPI ranks other than 0 nothing is written or printed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/sweep/configuration_run.hpp"
#include "bench/sweep/profile.hpp"
#include "bench/sweep/progress.hpp"
#include "bench/sweep/round_execution.hpp"
#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "common/output_file.hpp"
#include "common/run_status.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::bench {

// What a finished sweep reports: how its configurations ended and the files it wrote.
struct SweepOutcome {
  int ok = 0, failed = 0, skipped = 0;
  int interrupted_by = 0;  // the signal that stopped the sweep, or 0
  bool fatal = false;      // a device-fatal error stopped the sweep
  std::string stopped;     // why the sweep stopped before its end (a signal, a fatal error, its A/B driver), or ""
  std::filesystem::path results_json, results_jsonl, report_html;
};

class SweepRecorder {
 public:
  // A collective on an MPI job: every process learns whether rank 0 got the lock, and all throw
  // its InputError if it did not (another sweep writes there).
  SweepRecorder(const std::vector<Config>& configs, const RunOptions& opts);
  SweepRecorder(const SweepRecorder&) = delete;
  SweepRecorder& operator=(const SweepRecorder&) = delete;

  // Configuration i's round `round` of `rounds` starts (the live row on a terminal); a configuration
  // that is skipped or closed without running starts as round 0 of 1.
  void start(std::size_t i, int round, int rounds);
  // Configuration i is an alias: it is written once, when the configuration it repeats closes.
  void expect_alias(std::size_t i) { progress_.closes_in_one_step(static_cast<int>(i)); }
  // Writes what configuration i handed back after a step (configuration_run.hpp): appends its
  // record to results.jsonl, flushed, and prints its round's or its closing line.
  void record(std::size_t i, const RecordEntry& entry);
  // (rank 0) Writes results.json and report.html, and counts how the configurations ended.
  SweepOutcome finish(const std::vector<RunStatus>& ended, const SweepStop& stop, const SweepSpec& spec,
                      const RunOptions& opts);

 private:
  const std::vector<Config>& configs_;
  std::optional<OutputDirLock> lock_;  // declared before the writer: released after it closes
  std::optional<reports::ResultsWriter> writer_;
  std::string started_utc_;  // the sweep's start, for results.json's run_time
  Progress progress_;
};

}  // namespace rb::bench
