// The preconditions of the merge, fold and fill launchers, host code shared by the device kernels
// (kernels/*.cu) and the emulated device's launchers (emu/kernels/), so both refuse alike, with one
// message. The attention launcher's are in attention_block_work.cpp.
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "kernels/fill_inputs.cuh"
#include "kernels/fold_piece.cuh"
#include "kernels/merge_partials.cuh"

namespace rb::kernels {

bool check_merge_launch(const MergeParams& p) {
  if (p.d <= 0 || p.d % 4 != 0 || p.hq <= 0 || p.rows < 0)
    throw Error("merge_partials (cuda): d = " + std::to_string(p.d) +
                " must be a positive multiple of 4, hq = " + std::to_string(p.hq));
  const std::int64_t lines = p.rows * p.hq;
  if (lines == 0) return false;
  if (reinterpret_cast<std::uintptr_t>(p.o_acc) % 16 != 0 || reinterpret_cast<std::uintptr_t>(p.o_part) % 16 != 0)
    throw Error("merge_partials (cuda): O buffers must be 16-byte aligned");
  return true;
}

bool check_fold_launch(const FoldPieceParams& p) {
  if (p.d <= 0 || p.d % 4 != 0 || p.hq <= 0 || p.rows < 0 || p.row0 < 0)
    throw Error("fold_piece (cuda): d = " + std::to_string(p.d) + " must be a positive multiple of 4, hq = " +
                std::to_string(p.hq) + ", rows from " + std::to_string(p.row0) + " (" + std::to_string(p.rows) + ")");
  if (p.o_acc == nullptr || p.lse_acc == nullptr) throw Error("fold_piece (cuda): null accumulators");
  if (p.mode != FoldMode::clear && (p.o_piece == nullptr || p.lse_piece == nullptr))
    throw Error("fold_piece (cuda): null piece");
  const std::int64_t lines = p.rows * p.hq;
  if (lines == 0) return false;
  if (reinterpret_cast<std::uintptr_t>(p.o_acc) % 16 != 0 || reinterpret_cast<std::uintptr_t>(p.o_piece) % 8 != 0)
    throw Error("fold_piece (cuda): O buffers must be 16-byte (fp32) and 8-byte (bf16) aligned");
  return true;
}

void check_fill_launch(const ref::FillParams& p) {
  if (p.round_as != DType::bfloat16) throw Error("fill_inputs (cuda): the device buffers hold bfloat16");
  if (p.heads <= 0 || p.head_dim <= 0) throw Error("fill_inputs (cuda): heads and head_dim must be positive");
}

}  // namespace rb::kernels
