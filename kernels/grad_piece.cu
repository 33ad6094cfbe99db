// The backward piece's kernels (see grad_piece.cuh): grid-stride loops over elements, one thread an
// element, coalesced on the side that is contiguous (pack_stats reads a strided column and writes
// packed rows; the LSE is rows × hq floats, a few hundred kilobytes at most, so the strided read is
// not worth a shared-memory transpose). Memory bound, no shared memory.
#include "kernels/grad_piece.cuh"

#include <algorithm>

#include "kernels/cuda_check.hpp"

namespace rb::kernels {
namespace {

unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kGradPieceThreads - 1) / kGradPieceThreads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, kGradPieceMaxBlocks));
}

// Grid: any; kGradPieceThreads threads. Preconditions (launcher): n > 0, both buffers present.
__global__ void __launch_bounds__(kGradPieceThreads) cast_bf16_kernel(const CastBf16Params p) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n; i += step)
    p.dst[i] = __float2bfloat16_rn(p.src[i]);
}

// Grid: any; kGradPieceThreads threads. Thread i writes stats[i] (h = i / rows, row i % rows).
// Preconditions (launcher): rows, hq > 0, row0 >= 0, both buffers present.
__global__ void __launch_bounds__(kGradPieceThreads) pack_stats_kernel(const PackStatsParams p) {
  const std::int64_t n = p.rows * p.hq, step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const std::int64_t h = i / p.rows, row = i % p.rows;
    p.stats[i] = p.lse[(p.row0 + row) * p.hq + h];
  }
}

// Grid: any; kGradPieceThreads threads. Thread e adds element e of the rows × width block.
// Preconditions (launcher): rows, width > 0, strides >= width, the blocks do not overlap.
__global__ void __launch_bounds__(kGradPieceThreads) add_rows_kernel(const AddRowsParams p) {
  const std::int64_t n = p.rows * p.width, step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step) {
    const std::int64_t row = e / p.width, col = e % p.width;
    p.dst[row * p.dst_stride + col] += p.src[row * p.src_stride + col];
  }
}

}  // namespace

void cast_bf16(const CastBf16Params& p, cudaStream_t stream) {
  if (!check_cast_launch(p)) return;
  cast_bf16_kernel<<<blocks_for(p.n), kGradPieceThreads, 0, stream>>>(p);
  RB_CUDA_CHECK_LAUNCH();
}

void pack_stats(const PackStatsParams& p, cudaStream_t stream) {
  if (!check_pack_stats_launch(p)) return;
  pack_stats_kernel<<<blocks_for(p.rows * p.hq), kGradPieceThreads, 0, stream>>>(p);
  RB_CUDA_CHECK_LAUNCH();
}

void add_rows(const AddRowsParams& p, cudaStream_t stream) {
  if (!check_add_rows_launch(p)) return;
  add_rows_kernel<<<blocks_for(p.rows * p.width), kGradPieceThreads, 0, stream>>>(p);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace rb::kernels
