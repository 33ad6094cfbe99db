// The cuDNN SDPA forward graph of one piece shape, as cudnn-frontend describes it: built by the real
// device's wrapper (cudnn_sdpa.cpp) and validated on the host by validate_sdpa_graph (cudnn_sdpa.hpp),
// which needs no device; the backward's is cudnn_sdpa_backward_graphs.hpp's, with the same uids. Split
// from the wrapper so that a build on the emulated device (emu/), which replaces the wrapper by its
// twin, still validates every graph against the real frontend. Only with cuDNN.
#pragma once

#ifdef RINGBENCH_HAVE_CUDNN
#include <cstdint>
#include <memory>

#include "ring/cuda/cudnn_check.hpp"
#include "ring/cuda/cudnn_sdpa.hpp"

namespace rb::ring::cudnn_graphs {

namespace fe = cudnn_frontend;

// The tensors of a graph, forward (Q, K, V -> O, Stats) and backward (Q, K, V, O, dO, Stats -> dQ,
// dK, dV), as execute() binds them.
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };

std::shared_ptr<fe::graph::Graph> sdpa_graph(const SdpaGraphKey& k, SdpaImplementation impl, int sm_version = 0);

}  // namespace rb::ring::cudnn_graphs
#endif
