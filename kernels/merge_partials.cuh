// Device merge kernel: folds one step's partial (O_b, L_b) into the running (O_a, L_a) in the stable
// log-sum-exp form of docs/design.md §3, fp32, in place. Same semantics as the CPU twin
// kernels/merge_partials_ref.hpp: rows with L_b = -inf are left alone, rows with L_a = -inf take
// (O_b, L_b) as they are, so -inf - -inf never occurs.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/host_device.hpp"

namespace rb::kernels {

struct MergeParams {
  float* o_acc = nullptr;           // (rows, hq, d), updated in place
  float* lse_acc = nullptr;         // (rows, hq), updated in place
  const float* o_part = nullptr;    // (rows, hq, d)
  const float* lse_part = nullptr;  // (rows, hq)
  std::int64_t rows = 0;
  int hq = 1, d = 128;  // d % 4 == 0 (float4 access)
};

// Lanes per (row, head) line: a power of two <= min(32, d/4), so a line's lanes sit in one warp
// and each moves float4s; a warp merges 32 / lanes lines at once.
RB_HD constexpr int merge_lanes_per_line(int d) {
  int g = 1;
  while (g * 2 <= 32 && g * 2 <= d / 4) g *= 2;
  return g;
}

// The line kernels' launch shape (this merge and the cuDNN piece fold, kernels/fold_piece.cuh):
// CTAs of kMergeThreads threads, `lanes` threads a line, enough CTAs for every line up to 65536 (the
// kernels' grid-stride loops cover the rest).
inline constexpr int kMergeThreads = 256;
inline unsigned merge_blocks(std::int64_t lines, int lanes) {
  const std::int64_t warps_needed = (lines * lanes + 31) / 32;
  const std::int64_t blocks = (warps_needed + kMergeThreads / 32 - 1) / (kMergeThreads / 32);
  return static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
}

// Enqueues the merge on `stream` (capturable). Throws rb::Error for d % 4 != 0 or misaligned rows.
// The launch's preconditions (kernels/launch_checks.cpp, shared with the emulated device's launcher):
// throws rb::Error naming the one broken; false when there is nothing to do (no rows).
bool check_merge_launch(const MergeParams& p);

void merge_partials(const MergeParams& p, cudaStream_t stream);

}  // namespace rb::kernels
