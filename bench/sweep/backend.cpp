// Which backends and transports this build and job can run, their executors, and their memory.
#include "bench/sweep/backend.hpp"

#include "bench/sweep/kernel_choice.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/size_estimate.hpp"
#include "ring/backend_support.hpp"
#include "ring/executor_cuda.hpp"
#include "ring/rank_placement.hpp"
#ifdef RINGBENCH_HAVE_MPI
#include "ring/mpi_world.hpp"
#endif
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
#include "ring/cuda_transport_nccl.hpp"
#endif

namespace rb::bench {
namespace {

// The local transport runs every rank in this process; mpi and nccl one rank per process of the
// MPI job, with the backend each carries.
void check_transport(const Config& cfg, const ring::World* w) {
  const int procs = w ? w->size() : 1;
  const std::string transport(to_string(cfg.transport));
  if (cfg.transport == Transport::local) {
    if (procs > 1)
      throw InputError(
          "transport", transport,
          fmt::format("launched as {} MPI processes, the local transport would run {} copies of one sweep: "
                      "use --transport mpi (cpu backend) or nccl (cuda backend)",
                      procs, procs));
    return;
  }
#ifndef RINGBENCH_HAVE_MPI
  throw InputError("transport", transport, "this build has no MPI (it was not found when ringbench was configured)");
#endif
#ifndef RINGBENCH_HAVE_NCCL_TRANSPORT
  if (cfg.transport == Transport::nccl)
    throw InputError("transport", transport, "this build has no NCCL transport (it needs CUDA, NCCL and MPI found)");
#endif
  if (!w)
    throw InputError("transport", transport,
                     fmt::format("runs one rank per process: launch with `mpirun -np {} ringbench run ...` (or srun)",
                                 cfg.cp));
  if (cfg.transport == Transport::mpi && cfg.backend != Backend::cpu)
    throw InputError("transport", transport, "the mpi transport carries the cpu backend; the cuda backend uses nccl");
  if (cfg.transport == Transport::nccl && cfg.backend != Backend::cuda)
    throw InputError("transport", transport, "the nccl transport carries the cuda backend; the cpu backend uses mpi");
  if (cfg.cp != procs)
    throw InputError("cp", std::to_string(cfg.cp),
                     fmt::format("with the {} transport each rank is a process: cp must equal the {} MPI processes "
                                 "launched",
                                 transport, procs));
}

}  // namespace

void check_backend(const Config& cfg, const ring::World* world) {
  check_transport(cfg, world);
  if (cfg.backend == Backend::cuda) {
#ifdef RINGBENCH_HAVE_CUDA
    if (!ring::cuda_device_available())
      throw InputError("backend", "cuda", "no CUDA device is available on this machine");
    if (cfg.transport == Transport::nccl && world != nullptr)
      ring::check_ranks_fit_node(world->ranks_on_this_host(), ring::cuda_device_count());
#else
    throw InputError("backend", "cuda", "this build has no CUDA backend (nvcc was not found when it was configured)");
#endif
  }
  ring::check_backend_supports(cfg);
  check_kernel(cfg);
}

std::unique_ptr<ring::Executor> make_executor(const ring::Plan& plan, const RunOptions& opts,
                                              const ring::CpuOptions& cpu, ring::ProcessGroup* group) {
  if (plan.config.transport == Transport::mpi) {
#ifdef RINGBENCH_HAVE_MPI
    if (!group) throw Error("the mpi transport needs the MPI job's process group");
    return ring::make_cpu_executor(plan, cpu, *group, ring::make_mpi_transport(*group, plan.config.link_gbps));
#else
    throw InputError("transport", "mpi", "this build has no MPI (it was not found when ringbench was configured)");
#endif
  }
  if (plan.config.backend != Backend::cuda) return ring::make_cpu_executor(plan, cpu);
  if (plan.config.transport == Transport::nccl) {
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
    if (!group) throw Error("the nccl transport needs the MPI job's process group");
    ring::CudaOptions c;
    c.launch = opts.launch;
    c.l2_flush = opts.l2_flush;
    return ring::make_nccl_executor(plan, c, *group);
#else
    throw InputError("transport", "nccl", "this build has no NCCL transport (it needs CUDA, NCCL and MPI)");
#endif
  }
#ifdef RINGBENCH_HAVE_CUDA
  ring::CudaOptions c;
  c.mode = opts.rank_mode;
  c.launch = opts.launch;
  c.l2_flush = opts.l2_flush;
  c.devices = opts.devices;
  return ring::make_cuda_executor(plan, c);
#else
  (void)opts;
  throw InputError("backend", "cuda", "this build has no CUDA backend");
#endif
}

std::int64_t estimated_host_bytes(const ring::Plan& plan, const RunOptions& opts, int processes) {
  const Config& c = plan.config;
  const std::int64_t rows = c.seq <= opts.full_check_limit ? c.seq : std::min(c.seq, opts.check_sample);
  // Reference: whole-sequence K and V in float64, and the checked rows' Q, O and the run's O.
  const double reference = 8.0 * (2.0 * static_cast<double>(c.seq) * c.kv_heads * c.head_dim +
                                  3.0 * static_cast<double>(rows) * c.heads * c.head_dim);
  return saturated_bytes(static_cast<double>(ring::cpu_executor_bytes(plan)) / std::max(1, processes) + reference);
}

int local_cuda_devices(const RunOptions& opts) {
#ifdef RINGBENCH_HAVE_CUDA
  return opts.devices == 0 ? std::max(1, ring::cuda_device_count()) : opts.devices;
#else
  (void)opts;
  return 1;
#endif
}

std::optional<DeviceMemory> device_memory(const ring::Plan& plan, int local_devices) {
#ifdef RINGBENCH_HAVE_CUDA
  if (plan.config.backend != Backend::cuda) return std::nullopt;
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
  const bool distributed = plan.config.transport != Transport::local;
  const auto need = distributed ? ring::nccl_executor_bytes(plan) : ring::cuda_executor_bytes(plan, local_devices);
#else
  const auto need = ring::cuda_executor_bytes(plan, local_devices);
#endif
  return DeviceMemory{need, ring::cuda_free_memory_bytes()};
#else
  (void)plan;
  (void)local_devices;
  return std::nullopt;
#endif
}

}  // namespace rb::bench
