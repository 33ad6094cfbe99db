// What every process group shares, whatever library carries it.
#include "ring/transport/process_group.hpp"

#include <cstdlib>
#include <string_view>

namespace rb::ring {

PeerFailure::PeerFailure(int peer, const std::string& reason)
    : Error("rank " + std::to_string(peer) + " failed: " + reason), peer_(peer) {}

bool launched_by_mpi() {
  if (const char* force = std::getenv("RINGBENCH_MPI")) return std::string_view(force) == "1";
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(var)) return true;
  return false;
}

}  // namespace rb::ring
