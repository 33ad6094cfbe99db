// Folding one cuDNN SDPA piece (ring/plan/sdpa_pieces.hpp) into a rank's fp32 accumulators: cuDNN writes
// the piece's O in bf16 and its log-sum-exp in fp32 over the piece's rows; this kernel writes them
// into the accumulators (the first piece to reach those rows at step 0), merges them in the stable
// form of docs/design.md §3 (kernels/merge_weights.hpp), or clears the accumulators to (O = 0,
// L = -inf) before a step whose pieces need it. CPU twin: kernels/fold_piece_ref.hpp.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "kernels/fold_mode.hpp"

namespace rb::kernels {

struct FoldPieceParams {
  float* o_acc = nullptr;                  // (sq, hq, d), rows [row0, row0 + rows) updated
  float* lse_acc = nullptr;                // (sq, hq)
  const __nv_bfloat16* o_piece = nullptr;  // (sq, hq, d): the piece's O at the same rows; unused to clear
  const float* lse_piece = nullptr;        // (sq, hq); unused to clear
  std::int64_t row0 = 0, rows = 0;
  int hq = 1, d = 128;  // d % 4 == 0
  FoldMode mode = FoldMode::merge;
};

// Enqueues the fold on `stream` (capturable). Throws rb::Error for d % 4 != 0, a negative range,
// null buffers the mode reads, or O rows that are not 8-byte aligned.
// The launch's preconditions (kernels/launch_checks.cpp, shared with the emulated device's launcher):
// throws rb::Error naming the one broken; false when there is nothing to do (no rows).
bool check_fold_launch(const FoldPieceParams& p);

void fold_piece(const FoldPieceParams& p, cudaStream_t stream);

}  // namespace rb::kernels
