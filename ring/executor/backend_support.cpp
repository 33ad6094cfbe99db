// The dtype, head-dimension, phase, variant and documents rule of each backend.
#include "ring/executor/backend_support.hpp"

#include <string>

#include "common/error.hpp"

namespace rb::ring {

void check_backend_supports(const Config& cfg) {
  if (cfg.backend == Backend::cuda) {
    if (cfg.dtype != DType::bfloat16)
      throw InputError("dtype", std::string(to_string(cfg.dtype)), "the cuda backend runs bfloat16");
    if (cfg.head_dim != 64 && cfg.head_dim != 128)
      throw InputError("head-dim", std::to_string(cfg.head_dim), "the cuda attention kernel supports D = 64 and 128");
    // Nothing falls back: the backward's buffers and steps (docs/design.md §3a) run on the cpu backend.
    // The all-to-alls of a head exchange (docs/design.md §3b) run on the cpu backend's transports only.
    if (cfg.variant == Variant::ulysses || cfg.variant == Variant::hybrid)
      throw InputError("variant", std::string(to_string(cfg.variant)),
                       "the cuda backend runs the ring variants only in this build (no all-to-all of heads on "
                       "the GPU yet); ulysses and hybrid run on --backend cpu");
    if (times_backward(cfg.phase))
      throw InputError("phase", std::string(to_string(cfg.phase)),
                       "the cuda backend runs the forward only in this build (neither --kernel ringbench nor "
                       "--kernel cudnn has a backward yet); the backward runs on --backend cpu");
    // Packed documents (docs/design.md §3c): the plan's within-document pieces map onto cuDNN's
    // rectangles and squares (tests/ring/plan/test_sdpa_pieces.cpp), but every distinct piece size is
    // a graph of its own, unbounded under a length mix, and neither kernel has run one on a GPU.
    if (cfg.documents.given())
      throw InputError("documents", cfg.documents.spec,
                       "the cuda backend runs one causal sequence in this build (neither --kernel ringbench nor "
                       "--kernel cudnn takes packed documents yet); documents run on --backend cpu");
  } else if (cfg.dtype == DType::bfloat16) {
    throw InputError("dtype", "bfloat16", "the cpu backend runs float64 or float32; bfloat16 needs the cuda backend");
  }
}

}  // namespace rb::ring
