// The emulated piece fold launcher (kernels/fold_piece.cuh): the device launcher's checks, then the
// twin (ref::fold_piece) over the row range, the piece's bf16 O given to it as the floats it holds.
// Declared as the kernel touches memory by mode: a clear only writes the accumulators' lines; a
// write reads the piece and writes the accumulators; a merge also reads the accumulators.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "emu/kernels/launcher_support.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/fold_piece.cuh"
#include "kernels/fold_piece_ref.hpp"

namespace rb::kernels {

void fold_piece(const FoldPieceParams& p, cudaStream_t stream) {
  if (!check_fold_launch(p)) return;
  const std::int64_t lines = p.rows * p.hq;

  namespace launchers = emu::launchers;
  const std::int64_t first = p.row0 * p.hq;  // the range's first line
  float* o_acc = p.o_acc + first * p.d;
  float* lse_acc = p.lse_acc + first;
  const std::size_t o_bytes = launchers::bytes_of<float>(lines * p.d), l_bytes = launchers::bytes_of<float>(lines);
  std::vector<emu::Access> acc = launchers::accesses({emu::writes(o_acc, o_bytes), emu::writes(lse_acc, l_bytes)});
  const __nv_bfloat16* o_piece = nullptr;
  const float* lse_piece = nullptr;
  if (p.mode != FoldMode::clear) {
    o_piece = p.o_piece + first * p.d;
    lse_piece = p.lse_piece + first;
    acc.push_back(emu::reads(o_piece, launchers::bytes_of<__nv_bfloat16>(lines * p.d)));
    acc.push_back(emu::reads(lse_piece, l_bytes));
  }
  if (p.mode == FoldMode::merge) {
    acc.push_back(emu::reads(o_acc, o_bytes));
    acc.push_back(emu::reads(lse_acc, l_bytes));
  }
  // The twin sees the range alone, from its first line (row0 = 0 there).
  const ref::FoldPieceParams rp{o_acc, lse_acc, nullptr, lse_piece, 0, p.rows, p.hq, p.d, p.mode};
  auto work = [rp, o_piece] {
    std::vector<float> piece;
    ref::FoldPieceParams q = rp;
    if (q.mode != FoldMode::clear) {
      piece.resize(static_cast<std::size_t>(q.rows * q.hq * q.d));
      launchers::bf16_to_float(o_piece, piece.size(), piece.data());
      q.o_piece = piece.data();
    }
    ref::fold_piece(q);
  };
  RB_CUDA_CHECK(emu::launch(stream, "fold_piece", std::move(acc), work));
}

}  // namespace rb::kernels
