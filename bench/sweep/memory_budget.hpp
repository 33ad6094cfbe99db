// The memory stage of a sweep: before a configuration's first round, the host memory its executor
// and reference will take and, on the cuda backend, its device memory are checked against what may
// be used, and one that would not fit is skipped with both figures instead of being killed by the
// OOM killer or failing half-allocated. On an MPI job every process learns every other's verdict,
// so that all of them skip alike.
#pragma once

#include <cstdint>
#include <string>

#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "ring/plan.hpp"

namespace rb::bench {

struct MemoryBudget {
  std::int64_t host_bytes = 0;  // per process; 0: not checked (MemAvailable unknown)
  int local_devices = 1;        // cuda, local transport: the GPUs the virtual ranks are dealt over
};

// --memory-limit, or else 90% of MemAvailable shared by this host's processes of the job; on an MPI
// job the smallest over every process, so all skip the same configurations. A collective there:
// every process calls it at the same point.
MemoryBudget memory_budget(const RunOptions& opts);

// Why the plan's configuration does not fit ("" where it does): host memory first, then device.
std::string memory_skip_reason(const ring::Plan& plan, const RunOptions& opts, const MemoryBudget& budget);

// A distributed configuration on an MPI job: every process leaves with the first process's reason to
// skip it ("rank k: ..."), if any has one, since device memory differs per rank. A collective there;
// `skip` comes back unchanged otherwise.
std::string agree_on_skip(const Config& cfg, std::string skip);

}  // namespace rb::bench
