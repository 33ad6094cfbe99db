// The parts of a result record (docs/design.md §8: config, status, reason, correctness, timing with
// its samples, plan, metrics, timeline, model, cupti), as results.json holds them. A record starts
// with every measured part null; bench/sweep/configuration_rounds.hpp fills them as its rounds run,
// and a configuration that is skipped or fails before measuring anything keeps them null.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "common/run_status.hpp"
#include "common/timeline.hpp"
#include "ring/executor.hpp"
#include "ring/plan.hpp"
#include "ring/reference.hpp"

namespace rb::bench {

// A record with every measured part null.
nlohmann::json result_record(const Config& cfg, RunStatus status, const std::string& reason);
nlohmann::json skipped_record(const Config& cfg, const std::string& reason);
nlohmann::json failed_record(const Config& cfg, const std::string& reason);
// `rec`, the record of the rounds that ran, failed for `reason` by a later round.
nlohmann::json with_failure(nlohmann::json rec, const std::string& reason);

nlohmann::json plan_to_json(const ring::Plan& plan);
nlohmann::json correctness_to_json(const ring::Correctness& c);
// The median pass's intervals, for the report's per-rank timeline, capped in number.
nlohmann::json timeline_to_json(const Timeline& tl);
// The ring simulator rerun on the median pass's own step times (the record's `model`).
nlohmann::json simulator_check(const ring::Plan& plan, const ring::PassRecord& pass);

}  // namespace rb::bench
