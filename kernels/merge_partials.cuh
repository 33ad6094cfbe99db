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

// Enqueues the merge on `stream` (capturable). Throws rb::Error for d % 4 != 0 or misaligned rows.
void merge_partials(const MergeParams& p, cudaStream_t stream);

}  // namespace rb::kernels
