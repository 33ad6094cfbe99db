// Device copy that records when it executed: a grid-stride copy (16-byte vectors where both ends
// are 16-byte aligned and the size allows) whose CTAs fold their start and end %globaltimer into an
// ExecStamp (kernels/exec_stamp.hpp). The local transport moves K/V with it instead of
// cudaMemcpyAsync, so the timed passes see a transfer's execution, not only the span from the
// moment its stream reached it (which, behind an attention kernel that fills every SM, includes the
// wait for SMs). It also reads a peer device's memory where peer access is enabled. CPU twin:
// kernels/stamped_copy_ref.hpp. A 2-D form moves strided rows (stamped_copy_2d).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/exec_stamp.hpp"

namespace rb::kernels {

struct StampedCopyParams {
  void* dst = nullptr;
  const void* src = nullptr;  // this device's memory, or a peer's with peer access enabled
  std::int64_t bytes = 0;
  ExecStamp* stamp = nullptr;  // device memory; folded with the first CTA's start, the last's end
};

inline constexpr int kCopyThreads = 256;
inline constexpr int kCopyMaxBlocks = 1024;  // grid-stride beyond this

// Enqueues the copy on `stream` (capturable). Throws rb::Error on bad params and rb::ApiError when
// the launch fails. A copy of 0 bytes still stamps, so every stamp of a pass is written.
void stamped_copy(const StampedCopyParams& p, cudaStream_t stream);

// The same for `rows` rows of `width` bytes, each at its own pitch on either side: what a head
// exchange's all-to-all moves on one GPU, a member's heads of every row packed into its message and
// unpacked from it (cudaMemcpy2DAsync's shape, with the execution stamped). 16-byte vectors where
// both pointers, both pitches and the width allow.
struct StampedCopy2dParams {
  void* dst = nullptr;
  std::int64_t dst_pitch = 0;  // bytes from one row's start to the next, >= width
  const void* src = nullptr;
  std::int64_t src_pitch = 0;
  std::int64_t width = 0, rows = 0;  // bytes of a row, and rows
  ExecStamp* stamp = nullptr;
};

// Its preconditions (kernels/launch_checks.cpp, shared with the emulated launcher): throws
// rb::Error naming the broken one (a negative size, a pitch shorter than the width, a null pointer
// with bytes to move, no stamp).
void check_stamped_copy_2d_launch(const StampedCopy2dParams& p);

void stamped_copy_2d(const StampedCopy2dParams& p, cudaStream_t stream);

}  // namespace rb::kernels
