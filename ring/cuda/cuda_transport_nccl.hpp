// The CUDA backend's nccl transport (docs/design.md §1, §7; docs/distributed.md): one ring rank per
// process, one GPU per process, K/V moved between processes by NCCL on a non-blocking
// communicator. The executor is the one CUDA executor (ring/cuda/cuda_transport.hpp); this transport
// makes the communicator, issues each step's send/recv or the all-gather, and aborts a hung pass.
//
// Traffic per pass and rank, with B = S/c · Hkv · D · 2 bytes (one bf16 K or V block):
// - ring: c-1 steps, each a ncclSend of 2B (K|V) to the next rank and a ncclRecv from the previous;
// - ring-bidirectional: c-1 steps, each B to the next rank and B to the previous, in one NCCL group
//   so both directions of each link carry data at once;
// - allgather: two in-place ncclAllGather calls (K, V); NCCL's ring all-gather forwards every block
//   once round the ring, so each rank sends and receives 2B(c-1).
// Built only with CUDA, NCCL and MPI (RINGBENCH_HAVE_NCCL_TRANSPORT); this header itself needs no
// CUDA or NCCL header.
#pragma once

#include <memory>

#include "ring/cuda/executor_cuda.hpp"
#include "ring/plan/plan.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::ring {

// This process hosts ring rank group.rank() of the plan (group.size() must be plan.config.cp,
// else rb::Error) on CUDA device local_rank % device_count (ring/cuda/rank_placement.hpp); opts.device
// and opts.mode are not used (the ring is always the real, concurrent one). Construction is
// collective (it creates the NCCL communicator), as are run_pass and output_rows: every process of
// the group calls them, in the same order, and gets the whole ring's timeline and rows. Throws
// InputError for a link model (Config::link_gbps > 0), ApiError for CUDA or NCCL failures. Its one
// caller, the sweep, has checked the dtype and D (bench/sweep/backend.cpp, check_backend), so they
// are not checked again. The group must outlive the executor. Its memory: nccl_executor_bytes
// (ring/executor/executor_bytes.hpp).
std::unique_ptr<CudaExecutor> make_nccl_executor(const Plan& plan, const CudaOptions& opts, ProcessGroup& group);

}  // namespace rb::ring
