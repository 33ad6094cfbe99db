// What the cuDNN backward of one piece (ring/cuda/cudnn_sdpa_backward.hpp) needs around it, three
// memory-bound kernels on a rank's buffers:
// - cast_bf16: the final O, accumulated in fp32, into the bf16 O every backward piece reads
//   (cuDNN's O input is the forward's output in the inputs' type; cast once per pass);
// - pack_stats: a piece's rows of the final log-sum-exp, (sq, hq) row-major, copied out packed BHSD
//   [1, hq, rows, 1], the only Stats layout cuDNN below 9.26 takes for a non-ragged piece;
// - add_rows: a piece's fp32 dQ, dK or dV (cuDNN writes them, it does not accumulate) added into the
//   rank's fp32 accumulators at the piece's rows: a strided block of rows × width, each with its
//   own row stride, so a piece's rows of a step's [K | V] gradients add in place.
// CPU twins: kernels/grad_piece_ref.hpp, the same arithmetic (one fp32 add; bf16 round to nearest
// even), so a device result equals its twin's bit for bit.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace rb::kernels {

struct CastBf16Params {
  const float* src = nullptr;    // n floats
  __nv_bfloat16* dst = nullptr;  // n bf16, rounded to nearest even
  std::int64_t n = 0;
};

struct PackStatsParams {
  const float* lse = nullptr;  // (sq, hq): the final log-sum-exp, natural log
  float* stats = nullptr;      // (hq, rows): stats[h * rows + i] = lse[(row0 + i) * hq + h]
  std::int64_t row0 = 0, rows = 0;
  int hq = 1;
};

struct AddRowsParams {
  float* dst = nullptr;        // rows × width, row i at dst + i * dst_stride
  const float* src = nullptr;  // rows × width, row i at src + i * src_stride
  std::int64_t rows = 0, width = 0, dst_stride = 0, src_stride = 0;
};

inline constexpr int kGradPieceThreads = 256;
inline constexpr int kGradPieceMaxBlocks = 1024;  // grid-stride beyond this

// The launches' preconditions (kernels/launch_checks.cpp, shared with the emulated device's
// launchers): throws rb::Error naming the one broken (a negative size, a null buffer with work to
// do, a row stride shorter than the width, overlapping source and destination); false when there is
// nothing to do.
bool check_cast_launch(const CastBf16Params& p);
bool check_pack_stats_launch(const PackStatsParams& p);
bool check_add_rows_launch(const AddRowsParams& p);

// Each enqueues its kernel on `stream` (capturable) and throws rb::ApiError when the launch fails.
void cast_bf16(const CastBf16Params& p, cudaStream_t stream);
void pack_stats(const PackStatsParams& p, cudaStream_t stream);
void add_rows(const AddRowsParams& p, cudaStream_t stream);

}  // namespace rb::kernels
