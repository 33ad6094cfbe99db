// The dtype, head-dimension, phase, variant and documents rule of each backend.
#include "ring/executor/backend_support.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "ring/program/compile.hpp"

namespace rb::ring {
namespace {

// The op kinds the cuda executor does not interpret yet (it runs exchange, gather, attend, merge and
// mark: ring/cuda/executor_cuda.cpp), first to last in the order they are refused, with the field
// a configuration asks for them by.
struct CudaLacks {
  OpKind kind;
  bool by_variant;  // the variant asks for it (else the phase)
  const char* rule;
};
constexpr const char* kNoHeadExchange =
    "the cuda backend runs the ring variants only in this build (no all-to-all of heads on the GPU yet); ulysses and "
    "hybrid run on --backend cpu";
constexpr const char* kNoBackward =
    "the cuda backend runs the forward only in this build (neither --kernel ringbench nor --kernel cudnn has a "
    "backward yet); the backward runs on --backend cpu";
constexpr CudaLacks kCudaLacks[] = {
    {OpKind::all_to_all, true, kNoHeadExchange},  {OpKind::delta, false, kNoBackward},
    {OpKind::attend_bwd, false, kNoBackward},     {OpKind::fold, false, kNoBackward},
    {OpKind::reduce_scatter, false, kNoBackward},
};

}  // namespace

void check_backend_supports(const Config& cfg) {
  if (cfg.backend == Backend::cuda) {
    if (cfg.dtype != DType::bfloat16)
      throw InputError("dtype", std::string(to_string(cfg.dtype)), "the cuda backend runs bfloat16");
    if (cfg.head_dim != 64 && cfg.head_dim != 128)
      throw InputError("head-dim", std::to_string(cfg.head_dim), "the cuda attention kernel supports D = 64 and 128");
    // Nothing falls back: what the cuda executor does not interpret of the configuration's step
    // program (ring/program/) runs on the cpu backend, and the refusal names the field that asked for it.
    const std::vector<OpKind> kinds = program_op_kinds(cfg);
    for (const CudaLacks& lack : kCudaLacks)
      if (std::find(kinds.begin(), kinds.end(), lack.kind) != kinds.end())
        throw InputError(lack.by_variant ? "variant" : "phase",
                         std::string(lack.by_variant ? to_string(cfg.variant) : to_string(cfg.phase)), lack.rule);
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
