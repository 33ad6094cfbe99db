// The record stage of a sweep, which owns its outputs. Opening it locks the output folder (only
// once the sweep is known to be valid, so bad input leaves no folder behind) and starts
// results.jsonl; every round's record so far is appended and flushed there, so that a kill loses
// nothing measured; progress goes to stderr; finishing writes results.json and report.html while
// the lock is still held. On MPI ranks other than 0 nothing is written or printed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/sweep/configuration_rounds.hpp"
#include "bench/sweep/profile.hpp"
#include "bench/sweep/progress.hpp"
#include "bench/sweep/round_execution.hpp"
#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "common/output_file.hpp"
#include "common/run_status.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::bench {

// One configuration of a sweep, from its first round until its last, and its final status.
struct ConfigurationSlot {
  std::unique_ptr<ConfigurationRounds> rounds;  // from its first round until it is closed
  std::optional<RunStatus> status;              // how it ended, once closed
  bool open() const { return !status; }
  // Whether round `round` (0-based) is still to run: an open configuration's first round, or a
  // later one it has.
  bool due(int round) const { return open() && (round == 0 || (rounds && round < rounds->rounds())); }
  // Adaptive sampling: round `round` has run and left the configuration open, wanting the next.
  bool wants_round_after(int round) const {
    return open() && rounds && !rounds->finished() && rounds->rounds_done() == round + 1;
  }
};

// What a finished sweep reports: how its configurations ended and the files it wrote.
struct SweepOutcome {
  int ok = 0, failed = 0, skipped = 0;
  int interrupted_by = 0;  // the signal that stopped the sweep, or 0
  bool fatal = false;      // a device-fatal error stopped the sweep
  std::filesystem::path results_json, results_jsonl, report_html;
};

class SweepRecorder {
 public:
  // A collective on an MPI job: every process learns whether rank 0 got the lock, and all throw
  // its InputError if it did not (another sweep writes there).
  SweepRecorder(const std::vector<Config>& configs, const RunOptions& opts);
  SweepRecorder(const SweepRecorder&) = delete;
  SweepRecorder& operator=(const SweepRecorder&) = delete;

  // Configuration i's round `round` of `rounds` starts (the live progress line).
  void start(std::size_t i, int round, int rounds);
  // Records configuration i as skipped, with why, and closes it.
  void skip(ConfigurationSlot& slot, std::size_t i, const std::string& reason);
  // The sweep stopped after configuration i ran some of its rounds: they stay, its last line in
  // results.jsonl (already written) is its record, and it is closed.
  void keep_rounds_run(ConfigurationSlot& slot, std::size_t i, const SweepStop& stop);
  // Records round `round` of configuration i as it ended: a failure closes the configuration as
  // failed (a later round keeps the earlier rounds' timing beside its reason), and so does a
  // signal that cut the round short, keeping the earlier rounds as they are; otherwise the record
  // so far is appended, and the configuration is closed after its last round.
  void record_round(ConfigurationSlot& slot, std::size_t i, int round, const RoundResult& result,
                    const SweepStop& stop);
  // Counts how every configuration ended and (rank 0) writes results.json and report.html.
  SweepOutcome finish(std::vector<ConfigurationSlot>& slots, const SweepStop& stop, const SweepSpec& spec,
                      const RunOptions& opts);

 private:
  void close(ConfigurationSlot& slot, std::size_t i, const nlohmann::json& rec, RunStatus status, bool write,
             const std::string& detail);
  void keep(ConfigurationSlot& slot, std::size_t i, const SweepStop& stop);

  const std::vector<Config>& configs_;
  std::optional<OutputDirLock> lock_;  // declared before the writer: released after it closes
  std::optional<reports::ResultsWriter> writer_;
  Progress progress_;
};

}  // namespace rb::bench
