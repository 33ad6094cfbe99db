// CPU twin of the piece fold (kernels/fold_piece.cuh): the same clear, write and merge of a row
// range, with the piece's O given as the floats its bf16 values are, and the same float arithmetic
// (kernels/merge_weights.hpp).
#pragma once

#include <cstdint>

#include "kernels/fold_mode.hpp"

namespace rb::kernels::ref {

struct FoldPieceParams {
  float* o_acc = nullptr;            // (sq, hq, d)
  float* lse_acc = nullptr;          // (sq, hq)
  const float* o_piece = nullptr;    // (sq, hq, d), bf16 values
  const float* lse_piece = nullptr;  // (sq, hq)
  std::int64_t row0 = 0, rows = 0;
  int hq = 1, d = 1;
  FoldMode mode = FoldMode::merge;
};

// Throws rb::Error for a negative range or null buffers the mode reads.
void fold_piece(const FoldPieceParams& p);

}  // namespace rb::kernels::ref
