// The backend a configuration runs on, in one place: whether it can run here at all (this build,
// this machine's devices, the MPI job's processes, and the backend's own dtype and D rule from
// ring/executor/backend_support.hpp), the executor that runs it, and the memory that executor and the
// reference will take, so that the sweep skips what cannot fit before allocating anything. Each
// answers by the configuration's row of the backend × transport table (backend_table.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/plan.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::bench {

// Throws InputError when cfg cannot run here: the build lacks its backend or transport, no CUDA
// device is visible, the MPI job (`world`, null without one) does not fit its transport, or its
// backend does not run its dtype or head dimension.
void check_backend(const Config& cfg, const ring::World* world);

// The executor for the configuration's backend and transport (the CUDA ones only in CUDA builds;
// mpi and nccl need the job's process group). Throws InputError, as check_backend does, for a pair
// that never runs or that this build lacks a part of.
std::unique_ptr<ring::Executor> make_executor(const ring::Plan& plan, const RunOptions& opts,
                                              const ring::CpuOptions& cpu, ring::ProcessGroup* group = nullptr);

// Bytes of host memory a configuration needs in one process: its share of the executor's buffers
// (all of them when `processes` is 1) and the reference's.
std::int64_t estimated_host_bytes(const ring::Plan& plan, const RunOptions& opts, int processes = 1);

// cuda, local transport: the GPUs of this node its virtual ranks are dealt over (--devices; 0: every
// visible one). 1 in builds without CUDA.
int local_cuda_devices(const RunOptions& opts);

struct DeviceMemory {
  std::int64_t needed_bytes = 0;  // on the fullest device
  std::int64_t free_bytes = 0;    // free there now
};
// The cuda backend's device memory for the plan; nullopt on the cpu backend and in builds without
// CUDA.
std::optional<DeviceMemory> device_memory(const ring::Plan& plan, int local_devices);

}  // namespace rb::bench
