// What a fold does to the accumulator rows it covers (kernels/fold_piece.cuh and its twin).
#pragma once

namespace rb::kernels {

enum class FoldMode {
  clear,  // O = 0, L = -inf: no key seen yet
  write,  // take the piece's (O, L) as they are
  merge,  // fold the piece into what the rows hold
};

}  // namespace rb::kernels
