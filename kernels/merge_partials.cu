// Device merge kernel. A group of lanes owns one (row, head) line: every lane reads both LSEs
// (broadcast loads), merges its float4s of O, and only after the warp has synchronised does the
// group's first lane overwrite L_a, so no lane reads an L_a that was already merged. Memory bound:
// per line it reads 2d + 2 floats and writes d + 1.
#include "kernels/merge_partials.cuh"

#include <cmath>

#include <string>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/merge_weights.hpp"

namespace rb::kernels {
namespace {

constexpr int kThreads = kMergeThreads;

// Grid: any size (grid-stride over warps); kThreads threads; no shared memory.
__global__ void __launch_bounds__(kThreads) merge_partials_kernel(const MergeParams p, int lanes) {
  // Preconditions (launcher): d % 4 == 0, 16-byte aligned lines, lanes == merge_lanes_per_line(d).
  const std::int64_t lines = p.rows * p.hq;
  const int per_warp = 32 / lanes, d4 = p.d / 4;
  const int lane = threadIdx.x % 32, g = lane / lanes, j = lane % lanes;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kThreads / 32);
  // The loop bound depends only on the warp index, so all 32 lanes reach __syncwarp together.
  for (std::int64_t w = (static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x) / 32; w * per_warp < lines;
       w += warps) {
    const std::int64_t line = w * per_warp + g;
    const bool active = line < lines;
    float la = -INFINITY, lb = -INFINITY;
    if (active) {
      la = p.lse_acc[line];
      lb = p.lse_part[line];
    }
    // Weights of the stable form; (0, 1) takes (O_b, L_b) as is when the row had seen no key.
    const MergeWeights mw = merge_weights(la, lb);
    const float l = mw.l, wa = mw.wa, wb = mw.wb;
    if (active && lb != -INFINITY) {
      auto* oa = reinterpret_cast<float4*>(p.o_acc + line * p.d);
      const auto* ob = reinterpret_cast<const float4*>(p.o_part + line * p.d);
      for (int x = j; x < d4; x += lanes) {
        const float4 b = ob[x];
        if (la == -INFINITY) {  // copied, not computed: exact as the twin, whatever O_a held
          oa[x] = b;
        } else {
          const float4 a = oa[x];
          oa[x] = make_float4(a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb);
        }
      }
    }
    __syncwarp();
    if (active && j == 0 && lb != -INFINITY) p.lse_acc[line] = l;
  }
}

}  // namespace

void merge_partials(const MergeParams& p, cudaStream_t stream) {
  if (!check_merge_launch(p)) return;
  const std::int64_t lines = p.rows * p.hq;
  const int lanes = merge_lanes_per_line(p.d);
  const unsigned blocks = merge_blocks(lines, lanes);
  merge_partials_kernel<<<blocks, kThreads, 0, stream>>>(p, lanes);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace rb::kernels
