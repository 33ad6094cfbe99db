// One configuration, run and written up as a result record (DESIGN §8: config, status, correctness,
// timing with its samples, plan, metrics, model).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/sweep_runner.hpp"
#include "common/config.hpp"
#include "ring/executor.hpp"
#include "ring/plan.hpp"
#include "ring/reference.hpp"

namespace rb::bench {

using ReferenceProvider = std::function<const std::vector<double>&(const ring::CheckRows&)>;

// Plans, runs (one checked pass, warm-up, timed repeats), checks and summarises one configuration.
// Throws on errors of execution; a correctness failure is a record with status "failed".
// `index` is the configuration's place in the sweep (for fault injection). With a distributed
// transport every process of `group` runs it, in step, and gets the same record.
nlohmann::json run_configuration(const Config& cfg, const RunOptions& opts, const ReferenceProvider& reference,
                                 int index, ring::ProcessGroup* group = nullptr);

// Bytes a configuration needs in one process: its share of the executor's buffers (all of them
// when `processes` is 1) and the reference's.
std::int64_t estimated_bytes(const ring::Plan& plan, const RunOptions& opts, int processes = 1);

// The executor for the configuration's backend (the CUDA one only in CUDA builds).
std::unique_ptr<ring::Executor> make_executor(const ring::Plan& plan, const RunOptions& opts,
                                              const ring::CpuOptions& cpu, ring::ProcessGroup* group = nullptr);

nlohmann::json skipped_record(const Config& cfg, const std::string& reason);
nlohmann::json failed_record(const Config& cfg, const std::string& reason);
nlohmann::json plan_to_json(const ring::Plan& plan);
nlohmann::json correctness_to_json(const ring::Correctness& c);

}  // namespace rb::bench
