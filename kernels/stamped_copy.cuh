// Device copy that records when it executed: a grid-stride copy (16-byte vectors where both ends
// are 16-byte aligned and the size allows) whose CTAs fold their start and end %globaltimer into an
// ExecStamp (kernels/exec_stamp.hpp). The local transport moves K/V with it instead of
// cudaMemcpyAsync, so the timed passes see a transfer's execution, not only the span from the
// moment its stream reached it (which, behind an attention kernel that fills every SM, includes the
// wait for SMs). It also reads a peer device's memory where peer access is enabled. CPU twin:
// kernels/stamped_copy_ref.hpp.
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

}  // namespace rb::kernels
