// CPU twins of the backward piece's kernels (kernels/grad_piece.cuh): the same element arithmetic,
// bf16 given as the floats its values are (every bf16 is a float), so the device result equals the
// twin's bit for bit.
#pragma once

#include <cstdint>

namespace rb::kernels::ref {

// x rounded to bf16 (8 bits of significand), to nearest with ties to even, as __float2bfloat16_rn:
// NaN stays NaN, infinities stay, a finite value beyond bf16's largest rounds to infinity.
float round_bf16(float x);

struct CastBf16Params {
  const float* src = nullptr;
  float* dst = nullptr;  // the bf16 values, as floats
  std::int64_t n = 0;
};

struct PackStatsParams {
  const float* lse = nullptr;  // (sq, hq)
  float* stats = nullptr;      // (hq, rows)
  std::int64_t row0 = 0, rows = 0;
  int hq = 1;
};

struct AddRowsParams {
  float* dst = nullptr;
  const float* src = nullptr;
  std::int64_t rows = 0, width = 0, dst_stride = 0, src_stride = 0;
};

// Each throws rb::Error for a negative size, a null buffer with work to do, or a stride shorter
// than the width.
void cast_bf16(const CastBf16Params& p);
void pack_stats(const PackStatsParams& p);
void add_rows(const AddRowsParams& p);

}  // namespace rb::kernels::ref
