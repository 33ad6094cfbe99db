// Device fill kernel: one thread per element of a segment's block, a grid-stride loop.
#include "kernels/fill_inputs.cuh"

#include <algorithm>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"

namespace rb::kernels {
namespace {

constexpr int kThreads = 256;

// Grid: any size; out points at the segment's first row.
__global__ void __launch_bounds__(kThreads)
    fill_segment_kernel(__nv_bfloat16* out, Segment seg, std::uint64_t seed, ref::Tensor t, int heads, int head_dim) {
  const std::int64_t n = seg.count * heads * head_dim;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; e < n;
       e += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    const FillIndex x = fill_index(e, heads, head_dim);
    out[e] = __double2bfloat16(ref::input_value(seed, t, heads, head_dim, seg.pos(x.i), x.h, x.d));
  }
}

}  // namespace

void fill_inputs(__nv_bfloat16* out, const SegmentList& segs, const ref::FillParams& p, cudaStream_t stream) {
  check_fill_launch(p);
  std::int64_t row = 0;
  for (const auto& s : segs) {
    const std::int64_t n = s.count * p.heads * p.head_dim;
    if (n > 0) {
      const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((n + kThreads - 1) / kThreads, 1 << 16));
      fill_segment_kernel<<<blocks, kThreads, 0, stream>>>(out + row * p.heads * p.head_dim, s, p.seed, p.tensor,
                                                           p.heads, p.head_dim);
      RB_CUDA_CHECK_LAUNCH();
    }
    row += s.count;
  }
}

}  // namespace rb::kernels
