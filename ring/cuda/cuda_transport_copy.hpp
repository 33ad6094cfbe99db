// The CUDA backend's local transport (docs/design.md §1, §7): every rank of the ring lives in this
// process, on one GPU or dealt over a node's GPUs (ring/cuda/rank_placement.hpp), and K/V move by copies.
// - On one GPU a transfer is a stamped copy kernel (kernels/stamped_copy.cuh), so the timeline sees
//   when it executed (comm) besides when its stream reached it (comm_in_flight).
// - Between two GPUs it is a peer copy on the copy engines (cudaMemcpyPeerAsync, over NVLink or
//   PCIe P2P where peer access is enabled), seen in flight only.
// - With the link model (Config::link_gbps > 0) each copy is paced to bytes / link from its start
//   (kernels/link_pace.cuh), to stand in for a slower interconnect.
//
// Traffic per pass and rank, with B = S/c · Hkv · D · 2 bytes (one bf16 K or V block):
// - ring: c-1 steps of 2B (K and V), each one copy into the rank's step buffer;
// - ring-bidirectional: c-1 steps of two copies of B (one lane's half-block K|V each way);
// - allgather: 2B from each of the c-1 other ranks, in 2(c-1) copies, at step 0.
// Built only with RINGBENCH_HAVE_CUDA.
#pragma once

#include <memory>

#include "ring/cuda/cuda_transport.hpp"

namespace rb::ring {

std::unique_ptr<CudaTransport> make_copy_transport();

}  // namespace rb::ring
