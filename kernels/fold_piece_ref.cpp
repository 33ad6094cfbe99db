// CPU twin of the piece fold.
#include "kernels/fold_piece_ref.hpp"

#include <cmath>

#include "common/error.hpp"
#include "kernels/merge_weights.hpp"

namespace rb::kernels::ref {

void fold_piece(const FoldPieceParams& p) {
  if (p.rows < 0 || p.row0 < 0 || p.o_acc == nullptr || p.lse_acc == nullptr ||
      (p.mode != FoldMode::clear && (p.o_piece == nullptr || p.lse_piece == nullptr)))
    throw Error("fold_piece: a negative row range or a null buffer");
  for (std::int64_t line = p.row0 * p.hq; line < (p.row0 + p.rows) * p.hq; ++line) {
    float* oa = p.o_acc + line * p.d;
    if (p.mode == FoldMode::clear) {
      for (int i = 0; i < p.d; ++i) oa[i] = 0.f;
      p.lse_acc[line] = -INFINITY;
      continue;
    }
    const float lb = p.lse_piece[line];
    if (lb == -INFINITY) continue;
    const float la = p.mode == FoldMode::merge ? p.lse_acc[line] : -INFINITY;
    const MergeWeights mw = merge_weights(la, lb);
    const float* ob = p.o_piece + line * p.d;
    for (int i = 0; i < p.d; ++i) oa[i] = la == -INFINITY ? ob[i] : oa[i] * mw.wa + ob[i] * mw.wb;
    p.lse_acc[line] = mw.l;
  }
}

}  // namespace rb::kernels::ref
