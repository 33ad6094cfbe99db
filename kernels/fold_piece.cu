// The piece fold kernel (see fold_piece.cuh), laid out as the merge kernel: a group of lanes owns
// one (row, head) line, every lane reads both LSEs (broadcast loads) and folds its 4-column chunks,
// and only after the warp has synchronised does the group's first lane overwrite L_a, so no lane
// reads an L_a already folded. Memory bound: per line it reads d bf16 + d + 2 floats and writes
// d + 1 floats.
#include "kernels/fold_piece.cuh"

#include <cmath>
#include <string>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/merge_partials.cuh"
#include "kernels/merge_weights.hpp"

namespace rb::kernels {
namespace {

constexpr int kThreads = kMergeThreads;

// Grid: any size (grid-stride over warps); kThreads threads; no shared memory. Lines are laid out as
// merge_partials lays them: `lanes` threads per line, 32 / lanes lines per warp.
__global__ void __launch_bounds__(kThreads) fold_piece_kernel(const FoldPieceParams p, int lanes) {
  // Preconditions (launcher): d % 4 == 0, 8-byte aligned bf16 rows and 16-byte aligned fp32 rows,
  // lanes == merge_lanes_per_line(d), pieces' buffers present unless mode == clear.
  const std::int64_t lines = p.rows * p.hq, first = p.row0 * p.hq;
  const int per_warp = 32 / lanes, d4 = p.d / 4;
  const int lane = threadIdx.x % 32, g = lane / lanes, j = lane % lanes;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kThreads / 32);
  // The loop bound depends only on the warp index, so all 32 lanes reach __syncwarp together.
  for (std::int64_t w = (static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x) / 32; w * per_warp < lines;
       w += warps) {
    const std::int64_t line = first + w * per_warp + g;
    const bool active = w * per_warp + g < lines;
    float la = -INFINITY, lb = -INFINITY;
    if (active && p.mode != FoldMode::clear) {
      lb = p.lse_piece[line];
      if (p.mode == FoldMode::merge) la = p.lse_acc[line];
    }
    const MergeWeights mw = merge_weights(la, lb);
    if (active) {
      auto* oa = reinterpret_cast<float4*>(p.o_acc + line * p.d);
      const auto* ob = reinterpret_cast<const __nv_bfloat162*>(p.o_piece + line * p.d);
      for (int x = j; x < d4; x += lanes) {
        if (p.mode == FoldMode::clear) {
          oa[x] = make_float4(0.f, 0.f, 0.f, 0.f);
          continue;
        }
        if (lb == -INFINITY) continue;  // nothing new (write: the piece saw no key; cannot happen)
        const float2 b0 = __bfloat1622float2(ob[2 * x]), b1 = __bfloat1622float2(ob[2 * x + 1]);
        if (la == -INFINITY) {  // written, not computed: exact as the twin
          oa[x] = make_float4(b0.x, b0.y, b1.x, b1.y);
        } else {
          const float4 a = oa[x];
          oa[x] = make_float4(a.x * mw.wa + b0.x * mw.wb, a.y * mw.wa + b0.y * mw.wb, a.z * mw.wa + b1.x * mw.wb,
                              a.w * mw.wa + b1.y * mw.wb);
        }
      }
    }
    __syncwarp();
    if (active && j == 0) {
      if (p.mode == FoldMode::clear)
        p.lse_acc[line] = -INFINITY;
      else if (lb != -INFINITY)
        p.lse_acc[line] = mw.l;
    }
  }
}

}  // namespace

void fold_piece(const FoldPieceParams& p, cudaStream_t stream) {
  if (!check_fold_launch(p)) return;
  const std::int64_t lines = p.rows * p.hq;
  const int lanes = merge_lanes_per_line(p.d);
  const unsigned blocks = merge_blocks(lines, lanes);
  fold_piece_kernel<<<blocks, kThreads, 0, stream>>>(p, lanes);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace rb::kernels
