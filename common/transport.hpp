// What a transport means for where a configuration's ranks live: the local transport runs every
// rank in this process (threads, or virtual ranks on its GPUs); mpi and nccl run one rank per
// process of an MPI job. Every layer that must tell the two apart asks here rather than compare
// against `local` itself: the sweep's memory estimates and agreements, the backend table
// (bench/sweep/backend_table.hpp), and the acceptance thresholds, which hold for one process only.
#pragma once

#include "common/config.hpp"

namespace rb {

// One rank per process of an MPI job.
constexpr bool is_distributed(Transport t) { return t != Transport::local; }

// The ranks of cfg that one process hosts: all of them on the local transport, else its own one.
constexpr int hosted_ranks(const Config& cfg) { return is_distributed(cfg.transport) ? 1 : cfg.cp; }

// The processes cfg's ranks are spread over: one on the local transport, else one a rank.
constexpr int processes(const Config& cfg) { return is_distributed(cfg.transport) ? cfg.cp : 1; }

}  // namespace rb
