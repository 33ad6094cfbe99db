// The cuDNN SDPA backward graph of one piece shape (Graph::sdpa_backward, issue 54), as
// cudnn_sdpa_graphs.hpp holds the forward's: host code shared by the real and the emulated build,
// validated on the host by cudnn_sdpa_backward.hpp's functions. No executor builds it yet. Only with
// cuDNN.
#pragma once

#ifdef RINGBENCH_HAVE_CUDNN
#include <memory>

#include "ring/cuda/cudnn_check.hpp"
#include "ring/cuda/cudnn_sdpa_backward.hpp"
#include "ring/cuda/cudnn_sdpa_graphs.hpp"

namespace rb::ring::cudnn_graphs {

// The backward graph of `k` over the forward's buffers: Q (kQ), K (kK), V (kV), the final O (kO)
// and dO (kDO) bf16 in the (rows, H, D) layout, Stats (kStats) in k.stats's layout, dQ (kDQ), dK
// (kDK), dV (kDV) in k.gradients; scale 1/√D; top-left causal for a causal key (the pieces never need
// bottom-right); the deterministic algorithm only where k.deterministic. `sm_version` > 0 builds it
// for that GPU generation without a device (90: Hopper). Throws rb::InputError where
// check_backward_graph_key does, before cuDNN sees the key.
std::shared_ptr<fe::graph::Graph> sdpa_backward_graph(const SdpaBackwardGraphKey& k, int sm_version = 0);

}  // namespace rb::ring::cudnn_graphs
#endif
