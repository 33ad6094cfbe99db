// The one table of backend × transport pairs, as common/scheme_table.hpp is of splits and
// variants: for each pair, what it needs of the build, whether it runs at all (the mpi transport
// carries only the cpu backend, nccl only the cuda one), its executor, its device-memory estimate
// and whether it is distributed. The build's optional parts are read from its #defines in one place,
// backend_table.cpp, which fills this table; bench/sweep/backend.hpp checks, makes and sizes a
// configuration's backend by its row, so adding a backend or a transport is a row here.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"
#include "common/transport.hpp"
#include "ring/cuda/executor_cuda.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/plan.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::bench {

// An optional part of a build, found or not when ringbench was configured.
enum class BuildPart { mpi, nccl, cuda };

struct PartSet {
  bool mpi = false;
  bool nccl = false;  // the NCCL transport: CUDA, NCCL and MPI all found
  bool cuda = false;
  bool has(BuildPart p) const { return p == BuildPart::mpi ? mpi : p == BuildPart::nccl ? nccl : cuda; }
};

// The entry points of this build's optional parts that the table's rows and bench/sweep/backend.cpp
// call, null where the build lacks the part: the build has a part where its entry points are.
// Whoever calls one checks the part first, so every path that uses them compiles in every build.
struct Build {
  bool (*cuda_device_available)() = nullptr;
  int (*cuda_device_count)() = nullptr;
  std::int64_t (*cuda_free_memory_bytes)(int device) = nullptr;
  // The CUDA executor for a configuration check_backend has passed: it does not check it again.
  std::unique_ptr<ring::CudaExecutor> (*make_cuda_executor)(const ring::Plan&, const ring::CudaOptions&) = nullptr;
  std::unique_ptr<ring::KvTransport> (*make_mpi_transport)(ring::ProcessGroup&, double link_gbps) = nullptr;
  std::unique_ptr<ring::CudaExecutor> (*make_nccl_executor)(const ring::Plan&, const ring::CudaOptions&,
                                                            ring::ProcessGroup&) = nullptr;

  constexpr PartSet parts() const {
    return {.mpi = make_mpi_transport != nullptr,
            .nccl = make_nccl_executor != nullptr,
            .cuda = make_cuda_executor != nullptr};
  }
};
const Build& this_build();

// How a configuration is refused when the build lacks a part it needs: the field named (its value
// is the configuration's transport or backend) and the rule.
struct BuildPartRule {
  BuildPart part;
  std::string_view where;  // "transport" or "backend"
  std::string_view rule;
};
const BuildPartRule& rule_of(BuildPart p);

// The executor of a pair: group is the job's process group on a distributed transport, else null.
using ExecutorFactory = std::unique_ptr<ring::Executor> (*)(const ring::Plan&, const RunOptions&,
                                                            const ring::CpuOptions&, ring::ProcessGroup* group);
// Bytes on the pair's fullest device; local_devices: the GPUs a local transport deals its ranks over.
using DeviceBytes = std::int64_t (*)(const ring::Plan&, int local_devices);

struct BackendTransport {
  Backend backend;
  Transport transport;
  PartSet needs;
  // A pair that never runs: the rule that says which pair does ("" where it runs).
  std::string_view refusal;
  ExecutorFactory make;      // null where refused
  DeviceBytes device_bytes;  // null where nothing is allocated on a device
  // Whether its executor takes --inject-fault's pass faults (CpuOptions::fault: throw, hang,
  // wrong-block); the CUDA executors are never given one (bench/sweep/fault_reach.hpp refuses them).
  bool pass_faults = false;
  constexpr bool distributed() const { return is_distributed(transport); }
};

// Every pair, backends in enum order and transports in enum order within each.
std::span<const BackendTransport> backend_table();
const BackendTransport& pair_of(Backend b, Transport t);
inline const BackendTransport& pair_of(const Config& cfg) { return pair_of(cfg.backend, cfg.transport); }

}  // namespace rb::bench
