// The link model's pacing (docs/design.md §7): a transfer on the comm stream is a stamped copy
// (kernels/stamped_copy.cuh, which records its start on %globaltimer) followed by a pace kernel
// (one thread spinning until start + bytes / bandwidth, then folding that moment into the stamp's
// end), so the transfer takes max(copy time, bytes / link bandwidth) and its stamp spans all of it,
// in stream order and therefore capturable in a graph. The spinning thread holds one CTA slot on
// one SM for the transfer's duration; the report states that this is how the link was emulated.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/exec_stamp.hpp"

namespace rb::kernels {

// Nanoseconds a transfer of `bytes` takes over a link of `gbps` Gbit/s (0 when gbps <= 0).
constexpr std::int64_t link_ns(std::int64_t bytes, double gbps) {
  return gbps > 0 ? static_cast<std::int64_t>(static_cast<double>(bytes) * 8.0 / gbps) : 0;
}

// Returns (on the device) once %globaltimer >= stamp's start + ns, and folds that moment into the
// stamp's end. The stamp must have been started by the copy before it on the same stream.
void link_pace(ExecStamp* stamp, std::int64_t ns, cudaStream_t stream);

}  // namespace rb::kernels
