// Which device each rank of the CUDA backend lives on. With the copy transport one process driving
// several GPUs of a node (the one-process, many-GPU mode) deals the ranks round-robin, so neighbours
// in the ring sit on neighbouring devices and every K/V transfer is a peer copy. With the nccl
// transport each process hosts one rank and takes the GPU its launcher's local rank names. Pure
// arithmetic and the environment, tested on the CPU.
#pragma once

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include "common/error.hpp"

namespace rb::ring {

// `requested`: devices to use (0: every visible one); `visible`: devices the runtime sees;
// `first`: the device used when only one is. Returns the device of each of the c ranks.
inline std::vector<int> place_ranks(int c, int requested, int visible, int first) {
  if (requested < 0) throw InputError("devices", std::to_string(requested), "must be 0 (every visible device) or more");
  if (requested > visible)
    throw InputError("devices", std::to_string(requested),
                     "only " + std::to_string(visible) + " CUDA device(s) are visible to this process");
  const int n = requested == 0 ? visible : requested;
  std::vector<int> dev(static_cast<std::size_t>(c), first);
  if (n > 1)
    for (int r = 0; r < c; ++r) dev[static_cast<std::size_t>(r)] = r % n;
  return dev;
}

// The distinct devices of a placement, in order of first use.
inline std::vector<int> devices_used(const std::vector<int>& placement) {
  std::vector<int> out;
  for (int d : placement) {
    bool seen = false;
    for (int u : out) seen = seen || u == d;
    if (!seen) out.push_back(d);
  }
  return out;
}

// The launcher's index of this process on its host: the first of OMPI_COMM_WORLD_LOCAL_RANK,
// SLURM_LOCALID and MPI_LOCALRANKID that holds a non-negative integer, else `fallback`. Processes
// sharing a node then take distinct GPUs, as NCCL requires of the ranks of one communicator.
inline int launcher_local_rank(int fallback) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    const char* end = v + std::strlen(v);
    int n = 0;
    const auto [p, ec] = std::from_chars(v, end, n);
    if (ec == std::errc() && p == end && n >= 0) return n;
  }
  return fallback;
}

// NCCL refuses two ranks of one communicator on one GPU (its "duplicate GPU" error, deep inside
// the first configuration). process_device deals a node's processes over the GPUs they see by
// local rank, so the limit is per node: a node may run as many ranks of the ring as it sees GPUs
// (2 nodes x 8 GPUs run --cp 16). Throws InputError naming the transport otherwise.
inline void check_ranks_fit_node(int ranks_on_node, int visible) {
  if (ranks_on_node <= visible) return;
  throw InputError("transport", "nccl",
                   "this node runs " + std::to_string(ranks_on_node) + " ranks of the ring but sees " +
                       std::to_string(visible) +
                       " CUDA device(s); NCCL needs a GPU per rank: launch at most that many processes per node");
}

// The device of a process that hosts one rank: its local rank over the devices it sees.
inline int process_device(int local_rank, int visible) {
  if (visible < 1) throw Error("no CUDA device is visible to this process");
  return local_rank % visible;
}

}  // namespace rb::ring
