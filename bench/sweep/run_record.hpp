// The parts of a result record (docs/design.md §8: config, status, correctness, timing with its samples,
// plan, metrics, model) and what running a configuration needs: its executor and its memory
// estimate. bench/sweep/config_run.hpp runs a configuration and fills the record.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/sweep/sweep_runner.hpp"
#include "common/config.hpp"
#include "ring/executor.hpp"
#include "ring/plan.hpp"
#include "ring/reference.hpp"

namespace rb::bench {

using ReferenceProvider = std::function<const std::vector<double>&(const ring::CheckRows&)>;

// Bytes a configuration needs in one process: its share of the executor's buffers (all of them
// when `processes` is 1) and the reference's.
std::int64_t estimated_bytes(const ring::Plan& plan, const RunOptions& opts, int processes = 1);

// The executor for the configuration's backend (the CUDA one only in CUDA builds).
std::unique_ptr<ring::Executor> make_executor(const ring::Plan& plan, const RunOptions& opts,
                                              const ring::CpuOptions& cpu, ring::ProcessGroup* group = nullptr);

// A record with every measured part null; config_run fills them.
nlohmann::json result_record(const Config& cfg, const char* status, const std::string& reason);
nlohmann::json skipped_record(const Config& cfg, const std::string& reason);
nlohmann::json failed_record(const Config& cfg, const std::string& reason);
nlohmann::json plan_to_json(const ring::Plan& plan);
nlohmann::json correctness_to_json(const ring::Correctness& c);

}  // namespace rb::bench
