// The cuDNN SDPA graphs of one piece shape, forward and backward, as cudnn-frontend describes them:
// built by the real device's wrapper (cudnn_sdpa.cpp) and validated on the host by
// validate_sdpa_graph / validate_sdpa_backward_graph (cudnn_sdpa.hpp), which need no device. Split
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

enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };

std::shared_ptr<fe::graph::Graph> sdpa_graph(const SdpaGraphKey& k, SdpaImplementation impl, int sm_version = 0);

}  // namespace rb::ring::cudnn_graphs
#endif
