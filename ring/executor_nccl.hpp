// The CUDA backend on the nccl transport (docs/design.md §1, §7): one ring rank per process, one GPU per
// process, K/V moved between processes by NCCL (send/recv round the ring, or an all-gather). Built
// only with CUDA, NCCL and MPI (RINGBENCH_HAVE_NCCL_TRANSPORT); this header itself needs no CUDA or
// NCCL header.
#pragma once

#include <cstdint>
#include <memory>

#include "ring/executor_cuda.hpp"
#include "ring/plan.hpp"
#include "ring/process_group.hpp"

namespace rb::ring {

// This process hosts ring rank group.rank() of the plan (group.size() must be plan.config.cp,
// else rb::Error) on CUDA device local_rank % device_count, where the local rank comes from
// OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID or MPI_LOCALRANKID, else group.rank(); opts.device and
// opts.mode are not used (the ring is always the real, concurrent one). Construction is collective
// (it creates the NCCL communicator), as are run_pass and output_rows: every process of the group
// calls them, in the same order, and gets the whole ring's timeline and rows. Throws InputError
// for dtypes other than bfloat16, D other than 64/128, or a link model (Config::link_gbps > 0),
// ApiError for CUDA or NCCL failures. The group must outlive the executor.
std::unique_ptr<CudaExecutor> make_nccl_executor(const Plan& plan, const CudaOptions& opts, ProcessGroup& group);

// Device bytes the nccl executor allocates for ONE rank (what each process needs on its GPU), to
// skip what cannot fit. NCCL's own buffers are not included.
std::int64_t nccl_executor_bytes(const Plan& plan);

}  // namespace rb::ring
