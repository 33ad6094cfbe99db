// The stamped copy kernel (see stamped_copy.cuh).
#include "kernels/stamped_copy.cuh"

#include <algorithm>
#include <cassert>
#include <string>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/ptx_primitives.cuh"

namespace rb::kernels {
namespace {

// Grid: 1..kCopyMaxBlocks CTAs of kCopyThreads, grid-stride over 16-byte vectors (vec) or bytes.
__global__ void __launch_bounds__(kCopyThreads) stamped_copy_kernel(const StampedCopyParams p, bool vec) {
  // Preconditions, checked by the launcher: blockDim = kCopyThreads; with vec, dst and src 16-byte
  // aligned and bytes % 16 == 0; stamp in device memory.
  assert(blockDim.x == kCopyThreads);
  auto* inv_begin = reinterpret_cast<unsigned long long*>(&p.stamp->inv_begin);
  auto* end = reinterpret_cast<unsigned long long*>(&p.stamp->end);
  if (threadIdx.x == 0) atomicMax(inv_begin, ~static_cast<unsigned long long>(ptx::global_timer_ns()));
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kCopyThreads;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kCopyThreads + threadIdx.x;
  if (vec) {
    const auto* s = static_cast<const uint4*>(p.src);
    auto* d = static_cast<uint4*>(p.dst);
    for (std::int64_t i = first; i < p.bytes / 16; i += stride) d[i] = s[i];
  } else {
    const auto* s = static_cast<const unsigned char*>(p.src);
    auto* d = static_cast<unsigned char*>(p.dst);
    for (std::int64_t i = first; i < p.bytes; i += stride) d[i] = s[i];
  }
  __syncthreads();  // the CTA's last store issued before its end is stamped
  if (threadIdx.x == 0) atomicMax(end, static_cast<unsigned long long>(ptx::global_timer_ns()));
}

// Grid: 1..kCopyMaxBlocks CTAs of kCopyThreads, grid-stride over rows × units (16-byte vectors with
// vec, else bytes); unit i is row i / per_row, unit i % per_row of it.
__global__ void __launch_bounds__(kCopyThreads) stamped_copy_2d_kernel(const StampedCopy2dParams p, bool vec) {
  // Preconditions, checked by the launcher: blockDim = kCopyThreads; pitches >= width; with vec,
  // dst, src, both pitches and the width multiples of 16; stamp in device memory.
  assert(blockDim.x == kCopyThreads);
  auto* inv_begin = reinterpret_cast<unsigned long long*>(&p.stamp->inv_begin);
  auto* end = reinterpret_cast<unsigned long long*>(&p.stamp->end);
  if (threadIdx.x == 0) atomicMax(inv_begin, ~static_cast<unsigned long long>(ptx::global_timer_ns()));
  const std::int64_t unit = vec ? 16 : 1, per_row = p.width / unit, units = per_row * p.rows;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kCopyThreads;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kCopyThreads + threadIdx.x; i < units; i += stride) {
    const std::int64_t row = i / per_row, at = (i % per_row) * unit;
    const auto* s = static_cast<const unsigned char*>(p.src) + row * p.src_pitch + at;
    auto* d = static_cast<unsigned char*>(p.dst) + row * p.dst_pitch + at;
    if (vec)
      *reinterpret_cast<uint4*>(d) = *reinterpret_cast<const uint4*>(s);
    else
      *d = *s;
  }
  __syncthreads();  // the CTA's last store issued before its end is stamped
  if (threadIdx.x == 0) atomicMax(end, static_cast<unsigned long long>(ptx::global_timer_ns()));
}

}  // namespace

void stamped_copy_2d(const StampedCopy2dParams& p, cudaStream_t stream) {
  check_stamped_copy_2d_launch(p);
  const auto addr = [](const void* x) { return reinterpret_cast<std::uintptr_t>(x); };
  const bool vec = p.width % 16 == 0 && p.dst_pitch % 16 == 0 && p.src_pitch % 16 == 0 && addr(p.dst) % 16 == 0 &&
                   addr(p.src) % 16 == 0;
  const std::int64_t units = (vec ? p.width / 16 : p.width) * p.rows;
  const std::int64_t want = (units + 4 * kCopyThreads - 1) / (4 * kCopyThreads);
  const auto blocks = static_cast<unsigned>(std::clamp<std::int64_t>(want, 1, kCopyMaxBlocks));
  stamped_copy_2d_kernel<<<blocks, kCopyThreads, 0, stream>>>(p, vec);
  RB_CUDA_CHECK_LAUNCH();
}

void stamped_copy(const StampedCopyParams& p, cudaStream_t stream) {
  if (p.bytes < 0 || p.stamp == nullptr || (p.bytes > 0 && (p.dst == nullptr || p.src == nullptr)))
    throw Error("stamped_copy (cuda): " + std::to_string(p.bytes) + " bytes, null pointer or stamp");
  const auto addr = [](const void* x) { return reinterpret_cast<std::uintptr_t>(x); };
  const bool vec = p.bytes % 16 == 0 && addr(p.dst) % 16 == 0 && addr(p.src) % 16 == 0;
  const std::int64_t units = vec ? p.bytes / 16 : p.bytes;
  // Four units per thread before the grid strides: a 4 MB block takes 256 CTAs.
  const std::int64_t want = (units + 4 * kCopyThreads - 1) / (4 * kCopyThreads);
  const auto blocks = static_cast<unsigned>(std::clamp<std::int64_t>(want, 1, kCopyMaxBlocks));
  stamped_copy_kernel<<<blocks, kCopyThreads, 0, stream>>>(p, vec);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace rb::kernels
