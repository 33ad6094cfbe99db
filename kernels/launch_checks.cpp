// The preconditions of the merge, fold, fill, backward piece and 2-D copy launchers, host code shared by the device
// kernels (kernels/*.cu) and the emulated device's launchers (emu/kernels/), so both refuse alike, with one message.
// The attention launcher's are in attention_block_work.cpp.
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "kernels/fill_inputs.cuh"
#include "kernels/fold_piece.cuh"
#include "kernels/grad_piece.cuh"
#include "kernels/merge_partials.cuh"
#include "kernels/stamped_copy.cuh"

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

namespace {

// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte.
bool overlap(const void* a, std::int64_t a_bytes, const void* b, std::int64_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + static_cast<std::uintptr_t>(b_bytes) && y < x + static_cast<std::uintptr_t>(a_bytes);
}

}  // namespace

bool check_cast_launch(const CastBf16Params& p) {
  if (p.n < 0) throw Error("cast_bf16 (cuda): n = " + std::to_string(p.n) + " is negative");
  if (p.n == 0) return false;
  if (p.src == nullptr || p.dst == nullptr) throw Error("cast_bf16 (cuda): null buffer");
  if (overlap(p.src, p.n * 4, p.dst, p.n * 2)) throw Error("cast_bf16 (cuda): source and destination overlap");
  return true;
}

bool check_pack_stats_launch(const PackStatsParams& p) {
  if (p.rows < 0 || p.row0 < 0 || p.hq <= 0)
    throw Error("pack_stats (cuda): rows from " + std::to_string(p.row0) + " (" + std::to_string(p.rows) +
                "), hq = " + std::to_string(p.hq));
  if (p.rows == 0) return false;
  if (p.lse == nullptr || p.stats == nullptr) throw Error("pack_stats (cuda): null buffer");
  if (overlap(p.lse, (p.row0 + p.rows) * p.hq * 4, p.stats, p.rows * p.hq * 4))
    throw Error("pack_stats (cuda): the log-sum-exp and the packed stats overlap");
  return true;
}

bool check_add_rows_launch(const AddRowsParams& p) {
  if (p.rows < 0 || p.width < 0 || p.dst_stride < p.width || p.src_stride < p.width)
    throw Error("add_rows (cuda): " + std::to_string(p.rows) + " rows of " + std::to_string(p.width) + ", strides " +
                std::to_string(p.dst_stride) + " and " + std::to_string(p.src_stride) + " (each at least the width)");
  if (p.rows == 0 || p.width == 0) return false;
  if (p.dst == nullptr || p.src == nullptr) throw Error("add_rows (cuda): null buffer");
  const std::int64_t dst_bytes = ((p.rows - 1) * p.dst_stride + p.width) * 4,
                     src_bytes = ((p.rows - 1) * p.src_stride + p.width) * 4;
  if (overlap(p.dst, dst_bytes, p.src, src_bytes)) throw Error("add_rows (cuda): source and destination overlap");
  return true;
}

void check_stamped_copy_2d_launch(const StampedCopy2dParams& p) {
  if (p.width < 0 || p.rows < 0 || p.dst_pitch < p.width || p.src_pitch < p.width)
    throw Error("stamped_copy_2d (cuda): " + std::to_string(p.rows) + " rows of " + std::to_string(p.width) +
                " bytes, pitches " + std::to_string(p.dst_pitch) + " and " + std::to_string(p.src_pitch) +
                " (each at least the width)");
  if (p.stamp == nullptr) throw Error("stamped_copy_2d (cuda): no stamp");
  if (p.width > 0 && p.rows > 0 && (p.dst == nullptr || p.src == nullptr))
    throw Error("stamped_copy_2d (cuda): null pointer");
}

void check_fill_launch(const ref::FillParams& p) {
  if (p.round_as != DType::bfloat16) throw Error("fill_inputs (cuda): the device buffers hold bfloat16");
  if (p.heads <= 0 || p.head_dim <= 0) throw Error("fill_inputs (cuda): heads and head_dim must be positive");
}

}  // namespace rb::kernels
