// Device fill kernel: bf16 Q, K or V shards generated from (seed, tensor, global position, head, dim)
// exactly as docs/design.md §3 and the CPU twin kernels/fill_inputs_ref.hpp: the double value is computed on
// the device with the twin's own constexpr input_value and rounded with __double2bfloat16 (nearest
// even), which is what ref::round_to(x, bfloat16) does on the host.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "common/segment.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "kernels/host_device.hpp"

namespace rb::kernels {

// Element e of a segment's (count, H, D) block: its index in the segment and its head and dim.
struct FillIndex {
  std::int64_t i = 0;
  int h = 0, d = 0;
  friend constexpr bool operator==(const FillIndex&, const FillIndex&) = default;
};
RB_HD constexpr FillIndex fill_index(std::int64_t e, int heads, int head_dim) {
  const std::int64_t hd = static_cast<std::int64_t>(heads) * head_dim;
  const std::int64_t rem = e % hd;
  return FillIndex{e / hd, static_cast<int>(rem / head_dim), static_cast<int>(rem % head_dim)};
}

// Fills out, laid out (rows, H, D) with rows in the order of segs' positions (one launch per
// segment). p.round_as must be bfloat16. Enqueued on `stream`; throws on bad params.
// The launch's preconditions (kernels/launch_checks.cpp, shared with the emulated device's launcher):
// throws rb::Error naming the one broken.
void check_fill_launch(const ref::FillParams& p);

void fill_inputs(__nv_bfloat16* out, const SegmentList& segs, const ref::FillParams& p, cudaStream_t stream);

}  // namespace rb::kernels
