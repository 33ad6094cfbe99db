// The emulated fill launcher (kernels/fill_inputs.cuh): the device launcher's checks, then one
// launch per non-empty segment, as the device launcher makes, each writing its segment's rows with
// the twin's values (ref::fill_inputs with round_as = bfloat16, the double the device's
// __double2bfloat16 rounds to nearest even) stored as bf16. Those doubles carry at most bf16's 8
// significant bits and lie in [-1, 1), so the float and then the bf16 conversion are exact, and the
// stored bits are the device's (tests/emu/test_emu_launchers.cpp holds them to __double2bfloat16).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/error.hpp"
#include "emu/kernels/launcher_support.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/fill_inputs.cuh"

namespace rb::kernels {
namespace {

// Rows of a segment the twin fills at once: bounds the scratch, not the result.
constexpr std::int64_t kFillChunkRows = 1024;

// Segment `seg`'s rows, (count, H, D) from `out` on.
void fill_segment_rows(__nv_bfloat16* out, Segment seg, const ref::FillParams& p) {
  const std::int64_t row_elems = static_cast<std::int64_t>(p.heads) * p.head_dim;
  std::vector<double> values;
  for (std::int64_t i0 = 0; i0 < seg.count; i0 += kFillChunkRows) {
    const std::int64_t n = std::min(kFillChunkRows, seg.count - i0);
    values.resize(static_cast<std::size_t>(n * row_elems));
    ref::fill_inputs(values.data(), SegmentList{Segment{seg.pos(i0), seg.stride, n}}, p);
    __nv_bfloat16* dst = out + i0 * row_elems;
    for (std::size_t e = 0; e < values.size(); ++e) dst[e] = __float2bfloat16_rn(static_cast<float>(values[e]));
  }
}

}  // namespace

void fill_inputs(__nv_bfloat16* out, const SegmentList& segs, const ref::FillParams& p, cudaStream_t stream) {
  check_fill_launch(p);
  std::int64_t row = 0;
  for (const auto& s : segs) {
    const std::int64_t n = s.count * p.heads * p.head_dim;
    if (n > 0) {
      __nv_bfloat16* dst = out + row * p.heads * p.head_dim;
      RB_CUDA_CHECK(emu::launch(stream, "fill_inputs", {emu::writes(dst, emu::launchers::bytes_of<__nv_bfloat16>(n))},
                                [dst, s, p] { fill_segment_rows(dst, s, p); }));
    }
    row += s.count;
  }
}

}  // namespace rb::kernels
