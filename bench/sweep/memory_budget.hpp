// The memory stage of a sweep: before a configuration's first round, the host memory its executor
// and reference will take and, on the cuda backend, its device memory are checked against what may
// be used, and one that would not fit is skipped with both figures instead of being killed by the
// OOM killer or failing half-allocated; one with more ranks than the threads or memory their state
// needs is skipped before its plan is made. On an MPI job every process learns every other's verdict,
// so that all of them skip alike.
#pragma once

#include <cstdint>
#include <string>

#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {

struct MemoryBudget {
  std::int64_t host_bytes = 0;  // per process; 0: not checked (MemAvailable unknown)
  int local_devices = 1;        // cuda, local transport: the GPUs the virtual ranks are dealt over
  // Builds whose buffers are held at once: 2 for one build of an A/B run by sample (`run --pace-unit
  // sample`), whose partner holds the same configuration's buffers through the same round.
  int holders = 1;
};

// --memory-limit, or else 90% of MemAvailable shared by this host's processes of the job (and, by
// sample, with the other build of the pair); on an MPI job the smallest over every process, so all
// skip the same configurations. A collective there: every process calls it at the same point.
MemoryBudget memory_budget(const RunOptions& opts);

// Host memory that grows with the ranks rather than with S, which the buffers' estimate
// (bench/sweep/backend.hpp) leaves out. Per (rank, step) cell: the plan's step and pairs, held
// twice (the sweep's plan and the executor's copy), and the step launches; per timed pass, a
// timeline of (2 + lanes) intervals a cell, kept for up to `repeats` candidate median passes plus
// the pass being recorded and its analysis; on the cpu backend, kThreadBytes a thread (the stack
// pages it touches, its allocator cache) and each compute thread's attention scratch. At c = 1024
// that is gigabytes for H = D = 1, where the buffers are kilobytes.
struct RankScale {
  std::int64_t cells = 0;    // (rank, step) entries: c * steps (c² rotating, c gathered)
  std::int64_t threads = 0;  // cpu backend: threads this process starts; 0 on cuda
  std::int64_t bytes = 0;    // saturated (common/size_estimate.hpp)
};
inline constexpr std::int64_t kThreadBytes = 128 * 1024;
// cfg must be valid (its variant's schedule must exist for its S and c).
RankScale rank_scale(const Config& cfg, const RunOptions& opts);

// Why a valid configuration cannot be planned here ("" where it can), checked before its plan is
// built, since the plan itself grows as c²: on the cpu backend more threads than one process may
// start (ring::kMaxCpuExecutorThreads), or the rank state alone over the host budget.
std::string scale_skip_reason(const Config& cfg, const RunOptions& opts, const MemoryBudget& budget);

// Why the plan's configuration does not fit ("" where it does): host memory first (buffers,
// reference and rank state), then device, where each of the budget's holders needs the estimate.
std::string memory_skip_reason(const ring::Plan& plan, const RunOptions& opts, const MemoryBudget& budget);

// A distributed configuration on an MPI job: every process leaves with the first process's reason to
// skip it ("rank k: ..."), if any has one, since device memory differs per rank. A collective there;
// `skip` comes back unchanged otherwise.
std::string agree_on_skip(const Config& cfg, std::string skip);

}  // namespace rb::bench
