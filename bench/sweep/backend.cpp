// Which backends and transports this build and job can run, their executors, and their memory, by
// the configuration's row of the backend table.
#include "bench/sweep/backend.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "bench/sweep/backend_table.hpp"
#include "bench/sweep/kernel_choice.hpp"
#include "common/error.hpp"
#include "common/size_estimate.hpp"
#include "ring/cuda/rank_placement.hpp"
#include "ring/executor/backend_support.hpp"

namespace rb::bench {
namespace {

constexpr std::initializer_list<BuildPart> kEveryPart{BuildPart::mpi, BuildPart::nccl, BuildPart::cuda};

// The first of `parts`, in that order, that the pair needs and this build lacks.
std::optional<BuildPart> lacking(const BackendTransport& pair, std::initializer_list<BuildPart> parts) {
  for (const BuildPart part : parts)
    if (pair.needs.has(part) && !this_build().parts().has(part)) return part;
  return std::nullopt;
}

InputError missing_part(const Config& cfg, BuildPart part) {
  const BuildPartRule& r = rule_of(part);
  const std::string value(r.where == "backend" ? to_string(cfg.backend) : to_string(cfg.transport));
  return InputError(std::string(r.where), value, std::string(r.rule));
}

// The local transport runs every rank in this process; mpi and nccl one rank per process of the
// MPI job, with the backend each carries. What the transport needs of the build is checked before
// the job, and the backend's (cuda) after it.
void check_transport(const Config& cfg, const BackendTransport& pair, const ring::World* w) {
  const int procs = w ? w->size() : 1;
  const std::string transport(to_string(cfg.transport));
  if (!pair.distributed()) {
    if (procs > 1)
      throw InputError(
          "transport", transport,
          fmt::format("launched as {} MPI processes, the local transport would run {} copies of one sweep: "
                      "use --transport mpi (cpu backend) or nccl (cuda backend)",
                      procs, procs));
    return;
  }
  if (const auto part = lacking(pair, {BuildPart::mpi, BuildPart::nccl})) throw missing_part(cfg, *part);
  if (!w)
    throw InputError("transport", transport,
                     fmt::format("runs one rank per process: launch with `mpirun -np {} ringbench run ...` (or srun)",
                                 cfg.cp));
  if (!pair.refusal.empty()) throw InputError("transport", transport, std::string(pair.refusal));
  if (cfg.cp != procs)
    throw InputError("cp", std::to_string(cfg.cp),
                     fmt::format("with the {} transport each rank is a process: cp must equal the {} MPI processes "
                                 "launched",
                                 transport, procs));
}

}  // namespace

void check_backend(const Config& cfg, const ring::World* world) {
  const BackendTransport& pair = pair_of(cfg);
  check_transport(cfg, pair, world);
  if (pair.needs.cuda) {
    const Build& build = this_build();
    if (!build.parts().cuda) throw missing_part(cfg, BuildPart::cuda);
    if (!build.cuda_device_available())
      throw InputError("backend", "cuda", "no CUDA device is available on this machine");
    if (pair.distributed() && world != nullptr)
      ring::check_ranks_fit_node(world->ranks_on_this_host(), build.cuda_device_count());
  }
  ring::check_backend_supports(cfg);
  check_kernel(cfg);
}

std::unique_ptr<ring::Executor> make_executor(const ring::Plan& plan, const RunOptions& opts,
                                              const ring::CpuOptions& cpu, ring::ProcessGroup* group) {
  const BackendTransport& pair = pair_of(plan.config);
  if (const auto part = lacking(pair, kEveryPart)) throw missing_part(plan.config, *part);
  if (!pair.make)
    throw InputError("transport", std::string(to_string(plan.config.transport)), std::string(pair.refusal));
  return pair.make(plan, opts, cpu, group);
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
  if (!this_build().parts().cuda) return 1;
  return opts.devices == 0 ? std::max(1, this_build().cuda_device_count()) : opts.devices;
}

std::optional<DeviceMemory> device_memory(const ring::Plan& plan, int local_devices) {
  const BackendTransport& pair = pair_of(plan.config);
  if (!pair.device_bytes || lacking(pair, kEveryPart)) return std::nullopt;
  return DeviceMemory{pair.device_bytes(plan, local_devices), this_build().cuda_free_memory_bytes(0)};
}

}  // namespace rb::bench
