// The MPI job a distributed `ringbench run` lives in: MPI_Init_thread at start, MPI_Finalize at
// the end, and what is learnt once per job (hosts, ranks per host, clock offsets). This header
// needs no MPI header; it is compiled only where MPI was found (RINGBENCH_HAVE_MPI).
#pragma once

#include <memory>

#include "ring/transport/kv_transport.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::ring {

// Initialises MPI (asking for MPI_THREAD_MULTIPLE: each rank's comm thread talks MPI while the
// main thread waits; at least MPI_THREAD_SERIALIZED is required), then measures clock offsets.
// Call once, before anything else talks MPI; the World finalises MPI when destroyed.
std::unique_ptr<World> make_mpi_world(int* argc, char*** argv);

// The mpi transport over `group`, which must come from an MPI World's open_group().
std::unique_ptr<KvTransport> make_mpi_transport(ProcessGroup& group, double link_gbps);

}  // namespace rb::ring
