// The backend × transport table and the build parts it is filled from (see backend_table.hpp).
#include "bench/sweep/backend_table.hpp"

#include <array>

#include <fmt/format.h>

#include "common/error.hpp"
#include "ring/cuda/cuda_devices.hpp"
#include "ring/cuda/cuda_transport_nccl.hpp"
#include "ring/executor/executor_bytes.hpp"
#include "ring/transport/mpi_world.hpp"

namespace rb::bench {
namespace {

// The only place this build's #defines are read. The headers above need none of CUDA, MPI or NCCL,
// and nothing is called through a part this build lacks. The memory estimates are in every build
// (ring/executor/executor_bytes.hpp), so they are called directly. Every executor the sweep makes here is for
// a configuration check_backend (bench/sweep/backend.cpp) has passed, so the CUDA one is made
// without checking its dtype and D a second time.
constexpr Build kThisBuild{
#ifdef RINGBENCH_HAVE_CUDA
    .cuda_device_available = ring::cuda_device_available,
    .cuda_device_count = ring::cuda_device_count,
    .cuda_free_memory_bytes = ring::cuda_free_memory_bytes,
    .make_cuda_executor = ring::make_cuda_executor_prechecked,
#endif
#ifdef RINGBENCH_HAVE_MPI
    .make_mpi_transport = ring::make_mpi_transport,
#endif
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
    .make_nccl_executor = ring::make_nccl_executor,
#endif
};

// In BuildPart's order: rule_of() indexes by it.
constexpr std::array<BuildPartRule, 3> kPartRules{{
    {BuildPart::mpi, "transport", "this build has no MPI (it was not found when ringbench was configured)"},
    {BuildPart::nccl, "transport", "this build has no NCCL transport (it needs CUDA, NCCL and MPI found)"},
    {BuildPart::cuda, "backend", "this build has no CUDA backend (nvcc was not found when it was configured)"},
}};

ring::ProcessGroup& job_group(ring::ProcessGroup* group, Transport t) {
  if (!group) throw Error(fmt::format("the {} transport needs the MPI job's process group", to_string(t)));
  return *group;
}

std::unique_ptr<ring::Executor> cpu_local(const ring::Plan& plan, const RunOptions&, const ring::CpuOptions& cpu,
                                          ring::ProcessGroup*) {
  return ring::make_cpu_executor(plan, cpu);
}

std::unique_ptr<ring::Executor> cpu_mpi(const ring::Plan& plan, const RunOptions&, const ring::CpuOptions& cpu,
                                        ring::ProcessGroup* group) {
  ring::ProcessGroup& g = job_group(group, Transport::mpi);
  return ring::make_cpu_executor(plan, cpu, g, kThisBuild.make_mpi_transport(g, plan.config.link_gbps));
}

std::unique_ptr<ring::Executor> cuda_local(const ring::Plan& plan, const RunOptions& opts, const ring::CpuOptions&,
                                           ring::ProcessGroup*) {
  ring::CudaOptions c;
  c.mode = opts.rank_mode;
  c.launch = opts.launch;
  c.l2_flush = opts.l2_flush;
  c.devices = opts.devices;
  return kThisBuild.make_cuda_executor(plan, c);
}

// The ring is always the real, concurrent one over nccl: the rank mode and the device choice are
// the launcher's.
std::unique_ptr<ring::Executor> cuda_nccl(const ring::Plan& plan, const RunOptions& opts, const ring::CpuOptions&,
                                          ring::ProcessGroup* group) {
  ring::ProcessGroup& g = job_group(group, Transport::nccl);
  ring::CudaOptions c;
  c.launch = opts.launch;
  c.l2_flush = opts.l2_flush;
  return kThisBuild.make_nccl_executor(plan, c, g);
}

std::int64_t cuda_local_bytes(const ring::Plan& plan, int local_devices) {
  return ring::cuda_executor_bytes(plan, local_devices);
}

std::int64_t cuda_nccl_bytes(const ring::Plan& plan, int) { return ring::nccl_executor_bytes(plan); }

constexpr PartSet kNone{};
constexpr PartSet kMpi{.mpi = true};
constexpr PartSet kNcclTransport{.mpi = true, .nccl = true};
constexpr PartSet kCuda{.cuda = true};
constexpr PartSet kCudaMpi{.mpi = true, .cuda = true};
constexpr PartSet kCudaNccl{.mpi = true, .nccl = true, .cuda = true};

// In enum order, backend-major: pair_of() indexes by it.
constexpr std::array<BackendTransport, 6> kPairs{{
    {Backend::cpu, Transport::local, kNone, "", cpu_local, nullptr, true},
    {Backend::cpu, Transport::mpi, kMpi, "", cpu_mpi, nullptr, true},
    {Backend::cpu, Transport::nccl, kNcclTransport,
     "the nccl transport carries the cuda backend; the cpu backend uses mpi", nullptr, nullptr},
    {Backend::cuda, Transport::local, kCuda, "", cuda_local, cuda_local_bytes},
    {Backend::cuda, Transport::mpi, kCudaMpi, "the mpi transport carries the cpu backend; the cuda backend uses nccl",
     nullptr, nullptr},
    {Backend::cuda, Transport::nccl, kCudaNccl, "", cuda_nccl, cuda_nccl_bytes},
}};

constexpr std::size_t kTransports = 3;

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kPairs.size(); ++i)
    if (static_cast<std::size_t>(kPairs[i].backend) != i / kTransports ||
        static_cast<std::size_t>(kPairs[i].transport) != i % kTransports)
      return false;
  for (std::size_t i = 0; i < kPartRules.size(); ++i)
    if (static_cast<std::size_t>(kPartRules[i].part) != i) return false;
  return true;
}
static_assert(in_enum_order(), "the backend table and the part rules must follow the enums' order");

}  // namespace

const Build& this_build() { return kThisBuild; }

const BuildPartRule& rule_of(BuildPart p) {
  const auto i = static_cast<std::size_t>(p);
  if (i >= kPartRules.size()) throw Error("build part out of range");
  return kPartRules[i];
}

std::span<const BackendTransport> backend_table() { return kPairs; }

const BackendTransport& pair_of(Backend b, Transport t) {
  const auto i = static_cast<std::size_t>(b) * kTransports + static_cast<std::size_t>(t);
  if (static_cast<std::size_t>(t) >= kTransports || i >= kPairs.size())
    throw Error("backend or transport out of range");
  return kPairs[i];
}

}  // namespace rb::bench
