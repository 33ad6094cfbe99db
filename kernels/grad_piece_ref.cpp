// CPU twins of the backward piece's kernels.
#include "kernels/grad_piece_ref.hpp"

#include <bit>
#include <cmath>

#include "common/error.hpp"

namespace rb::kernels::ref {

float round_bf16(float x) {
  if (std::isnan(x)) return x;
  std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  // Add half of the dropped 16 bits' range, less one unless the kept lowest bit is odd: ties go to
  // the even neighbour. A carry into the exponent is the next binade, or infinity past the largest.
  u += 0x7FFFu + ((u >> 16) & 1u);
  return std::bit_cast<float>(u & 0xFFFF0000u);
}

void cast_bf16(const CastBf16Params& p) {
  if (p.n < 0 || (p.n > 0 && (p.src == nullptr || p.dst == nullptr)))
    throw Error("cast_bf16: a negative size or a null buffer");
  for (std::int64_t i = 0; i < p.n; ++i) p.dst[i] = round_bf16(p.src[i]);
}

void pack_stats(const PackStatsParams& p) {
  if (p.rows < 0 || p.row0 < 0 || p.hq <= 0 || (p.rows > 0 && (p.lse == nullptr || p.stats == nullptr)))
    throw Error("pack_stats: a negative row range, hq <= 0 or a null buffer");
  for (int h = 0; h < p.hq; ++h)
    for (std::int64_t i = 0; i < p.rows; ++i) p.stats[h * p.rows + i] = p.lse[(p.row0 + i) * p.hq + h];
}

void add_rows(const AddRowsParams& p) {
  if (p.rows < 0 || p.width < 0 || p.dst_stride < p.width || p.src_stride < p.width ||
      (p.rows > 0 && p.width > 0 && (p.dst == nullptr || p.src == nullptr)))
    throw Error("add_rows: a negative size, a stride shorter than the width or a null buffer");
  for (std::int64_t r = 0; r < p.rows; ++r)
    for (std::int64_t c = 0; c < p.width; ++c) p.dst[r * p.dst_stride + c] += p.src[r * p.src_stride + c];
}

}  // namespace rb::kernels::ref
