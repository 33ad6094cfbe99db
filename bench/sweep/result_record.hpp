// The sweep's own types as the parts of a result record (reports/results/run_record.hpp): the
// plan, the checked pass, the median pass's timeline and the simulator's estimate. A record starts
// with every measured part absent; bench/sweep/configuration_rounds.hpp fills them as its rounds
// run, and a configuration that is skipped or fails before measuring anything keeps them absent.
#pragma once

#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/run_status.hpp"
#include "common/timeline.hpp"
#include "reports/results/run_record.hpp"
#include "ring/check/reference.hpp"
#include "ring/check/reference_backward.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {

// A record with every measured part absent.
reports::RunRecord result_record(const Config& cfg, RunStatus status, const std::string& reason);
reports::RunRecord skipped_record(const Config& cfg, const std::string& reason);
reports::RunRecord failed_record(const Config& cfg, const std::string& reason);
// `rec`, the record of the rounds that ran, failed for `reason` by a later round.
reports::RunRecord with_failure(reports::RunRecord rec, const std::string& reason);

reports::RecordPlan plan_record(const ring::Plan& plan);
// Each rank's host (the MPI job's, else this machine's) and device (Executor::rank_devices); empty
// when no device is known.
std::vector<reports::RecordPlacement> placement_record(const std::vector<std::string>& rank_devices);
reports::RecordCorrectness correctness_record(const ring::Correctness& c,
                                              const std::optional<ring::GradientCorrectness>& gradients = {});
// The median pass's intervals, for the report's per-rank timeline, capped in number.
reports::RecordTimeline timeline_record(const Timeline& tl);
// The program simulator rerun on the median pass's own op times (the record's `model`).
reports::RecordModel simulator_check(const ring::Plan& plan, const ring::PassRecord& pass);

}  // namespace rb::bench
