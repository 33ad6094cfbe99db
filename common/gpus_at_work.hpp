// The GPUs a pass's c ranks ran on at once: what the per-GPU rate divides the pass's FLOPs by
// (docs/metrics.md), so it can be held against one device's peak. The executor reports it for the
// runs it makes; the results reader derives it for records written before the field existed.
#pragma once

#include <algorithm>

namespace rb {

// Ranks that run one at a time (the cuda backend's isolated mode, which composes the ring as if
// each rank had a GPU to itself), or each on a device or thread of its own (nccl, the cpu
// backend): c. Ranks that run at once on `devices` shared GPUs (cuda concurrent mode over the copy
// transport): that many, never more than c. 1 for c <= 0 or devices <= 0.
inline int gpus_at_work(int c, bool ranks_share_devices_at_once, int devices) {
  if (c <= 0) return 1;
  if (!ranks_share_devices_at_once) return c;
  return std::clamp(devices, 1, c);
}

}  // namespace rb
