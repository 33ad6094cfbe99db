// A configuration's life: plan, rounds, and the entries its record stage writes.
#include "bench/sweep/configuration_run.hpp"

#include <utility>

#include <fmt/format.h>

#include "bench/sweep/c1_alias.hpp"
#include "bench/sweep/progress.hpp"
#include "bench/sweep/result_record.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {

ConfigurationRun::ConfigurationRun(Config cfg, int index, std::string invalid)
    : cfg_(std::move(cfg)), index_(index), invalid_(std::move(invalid)) {}

bool ConfigurationRun::due(int round) const {
  if (!open() || alias_) return false;
  return rounds_ ? rounds_->due(round) : round == 0;
}

int ConfigurationRun::planned_rounds() const {
  if (!rounds_) return 1;
  return rounds_->adaptive() ? 0 : rounds_->rounds();
}

std::string ConfigurationRun::plan(const RunOptions& opts, const MemoryBudget& budget, const SweepStop& stop) {
  std::string skip = stop.stopped() ? "not run: " + stop.reason : invalid_;
  std::optional<ring::Plan> plan;
  if (skip.empty()) skip = scale_skip_reason(cfg_, opts, budget);  // before the plan, which grows as c²
  if (skip.empty()) {
    plan = ring::make_plan(cfg_);
    skip = memory_skip_reason(*plan, opts, budget);
  }
  skip = agree_on_skip(cfg_, std::move(skip));
  if (skip.empty()) rounds_ = std::make_unique<ConfigurationRounds>(std::move(*plan), opts, index_);
  return skip;
}

RoundResult ConfigurationRun::run_round(int round, ReferenceCache& references, const SampleGate& gate) {
  return execute_round(*rounds_, round, references, gate);
}

RecordEntry ConfigurationRun::close(reports::RunRecord record, RunStatus status, std::string detail, bool append) {
  status_ = status;
  rounds_.reset();  // its buffers are gone already; its candidate passes are not needed any more
  return RecordEntry{std::move(record), append, status, std::move(detail)};
}

RecordEntry ConfigurationRun::skip(const std::string& reason) {
  return close(skipped_record(cfg_, reason), RunStatus::skipped, reason);
}

RecordEntry ConfigurationRun::keep(const SweepStop& stop) {
  reports::RunRecord rec = rounds_->record();
  const std::string detail = fmt::format("{}  ({} of {} rounds: {})", timing_detail(rec), rounds_->rounds_done(),
                                         rounds_->rounds(), stop.reason);
  const RunStatus status = rounds_->standing().status;
  return close(std::move(rec), status, detail, false);
}

RecordEntry ConfigurationRun::keep_rounds_run(const SweepStop& stop) { return keep(stop); }

RecordEntry ConfigurationRun::after_round(int round, const RoundResult& result, const SweepStop& stop) {
  const ConfigurationRounds& run = *rounds_;
  const int done = run.rounds_done();
  if (result.cut) return done > 0 ? keep(stop) : skip(fmt::format("not run: {}", stop.reason));
  // The signal cut this round short, not a fault of the configuration: its earlier rounds stand.
  if (!result.failure.empty() && result.signal != 0 && done > 0) return keep(stop);
  if (!result.failure.empty()) {
    // A failure in a later round keeps the earlier rounds' timing beside its reason.
    const std::string reason = done > 0 ? fmt::format("round {} of {}: {}", round + 1, run.rounds(), result.failure)
                                        : result.failure;
    return close(done > 0 ? with_failure(run.record(), reason) : failed_record(cfg_, result.failure), RunStatus::failed,
                 reason);
  }
  reports::RunRecord rec = run.record();
  if (run.finished()) {
    const Standing now = run.standing();
    std::string detail = now.status == RunStatus::ok ? timing_detail(rec) : now.reason;
    return close(std::move(rec), now.status, std::move(detail));
  }
  // What is measured so far is appended, so that it survives a kill.
  RecordEntry open_entry{std::move(rec), true, std::nullopt, ""};
  open_entry.detail = timing_detail(open_entry.record);
  open_entry.round = round;
  open_entry.rounds = planned_rounds();
  return open_entry;
}

RecordEntry ConfigurationRun::alias_of(const RecordEntry& measured, const Config& of) {
  const RunStatus status = measured.closed.value_or(RunStatus::failed);
  std::string detail = fmt::format("= {} (c = 1: the same computation)", of.label());
  if (status != RunStatus::ok) detail += ": " + measured.detail;
  return close(alias_record(measured.record, cfg_), status, std::move(detail));
}

RunStatus ConfigurationRun::final_status() const {
  if (status_) return *status_;
  return rounds_ ? rounds_->standing().status : RunStatus::failed;
}

}  // namespace rb::bench
