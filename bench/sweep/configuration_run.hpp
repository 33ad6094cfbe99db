// One configuration of a sweep from its plan to its record, the one owner of its life: whether it
// runs at all (the plan stage), its rounds and their stopping rule (ConfigurationRounds), and how
// it ends. The schedule asks it whether a round is due; the pipeline runs the round; the record
// stage writes what it hands back (RecordEntry) and decides nothing. Once closed it is never due
// again and its buffers and candidate passes are gone.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "bench/sweep/configuration_rounds.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/memory_budget.hpp"
#include "bench/sweep/round_execution.hpp"
#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "common/run_status.hpp"
#include "reports/results/run_record.hpp"

namespace rb::bench {

// What the record stage writes after one step of a configuration.
struct RecordEntry {
  reports::RunRecord record;        // the record so far
  bool append = true;               // to results.jsonl; false when its last line there already says it
  std::optional<RunStatus> closed;  // set when this step ended the configuration, with how
  std::string detail;               // the progress line: timing so far, or why it ended
  int round = 0, rounds = 0;        // an open configuration's round that ended, of its planned (0: until steady)
};

class ConfigurationRun {
 public:
  // `invalid`: why the configuration breaks a rule (--skip-invalid), or "".
  ConfigurationRun(Config cfg, int index, std::string invalid);

  const Config& config() const { return cfg_; }
  bool open() const { return !status_; }
  // Whether its round `round` (0-based) is to run now: an open configuration's first round, or the
  // next of its rounds while they go on.
  bool due(int round) const;
  // The rounds it plans, for the progress line: 0 while --max-noise samples on until steady.
  int planned_rounds() const;

  // Round 0, the plan stage: why it is not run (it broke a rule, the sweep stopped, or it does not
  // fit, agreed over an MPI job), or "" once its plan and rounds are made.
  std::string plan(const RunOptions& opts, const MemoryBudget& budget, const SweepStop& stop);
  // The run stage of round `round`, which must be due; every process of a distributed
  // configuration calls it in step. `gate`: before each timed pass (an A/B run's unit sample).
  RoundResult run_round(int round, ReferenceCache& references, const SampleGate& gate = {});

  // The entries that end it or follow a round:
  RecordEntry skip(const std::string& reason);  // not run
  // The sweep stopped after some of its rounds: they stand, and its last line says so.
  RecordEntry keep_rounds_run(const SweepStop& stop);
  // After round `round` ended with `result`: a failure closes it as failed (a later round keeps the
  // earlier rounds' timing beside its reason), and so does a signal that cut the round short,
  // keeping the earlier rounds as they are; a round the A/B driver cut (`stop` says why) keeps the
  // earlier rounds, or without any leaves it not run; otherwise the record so far, closed after its
  // last round.
  RecordEntry after_round(int round, const RoundResult& result, const SweepStop& stop);

  // How it ended; an open configuration (a sweep cut short) stands as its rounds so far.
  RunStatus final_status() const;

  // An alias (c1_alias.hpp) is never due; it closes when the configuration it repeats does, with
  // that configuration's closing entry under its own config.
  void make_alias() { alias_ = true; }
  bool alias() const { return alias_; }
  RecordEntry alias_of(const RecordEntry& measured, const Config& of);

 private:
  RecordEntry close(reports::RunRecord record, RunStatus status, std::string detail, bool append = true);
  RecordEntry keep(const SweepStop& stop);

  Config cfg_;
  int index_;
  std::string invalid_;
  std::unique_ptr<ConfigurationRounds> rounds_;  // from its plan until it is closed
  std::optional<RunStatus> status_;
  bool alias_ = false;
};

}  // namespace rb::bench
