// The link model's pacing (DESIGN §7): a transfer on the comm stream is bracketed by a stamp kernel
// (writes the GPU's global nanosecond timer) and a pace kernel (one thread spinning until
// stamp + bytes / bandwidth), so the transfer takes max(copy time, bytes / link bandwidth), all in
// stream order and therefore capturable in a graph. The spinning thread holds one CTA slot on one SM
// for the transfer's duration; the report states that this is how the link was emulated.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace rb::kernels {

// Nanoseconds a transfer of `bytes` takes over a link of `gbps` Gbit/s (0 when gbps <= 0).
constexpr std::int64_t link_ns(std::int64_t bytes, double gbps) {
  return gbps > 0 ? static_cast<std::int64_t>(static_cast<double>(bytes) * 8.0 / gbps) : 0;
}

// Writes %globaltimer to *slot.
void link_stamp(std::uint64_t* slot, cudaStream_t stream);
// Returns (on the device) once %globaltimer >= *slot + ns.
void link_pace(const std::uint64_t* slot, std::int64_t ns, cudaStream_t stream);

}  // namespace rb::kernels
