// Which device each virtual rank of the CUDA backend's local transport lives on: one process
// driving several GPUs of a node (the one-process, many-GPU mode) deals the ranks round-robin,
// so neighbours in the ring sit on neighbouring devices and every K/V transfer is a peer copy.
// Pure arithmetic, tested on the CPU.
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"

namespace rb::ring {

// `requested`: devices to use (0: every visible one); `visible`: devices the runtime sees;
// `first`: the device used when only one is. Returns the device of each of the c ranks.
inline std::vector<int> place_ranks(int c, int requested, int visible, int first) {
  if (requested < 0) throw InputError("devices", std::to_string(requested), "must be 0 (every visible device) or more");
  if (requested > visible)
    throw InputError("devices", std::to_string(requested),
                     "only " + std::to_string(visible) + " CUDA device(s) are visible to this process");
  const int n = requested == 0 ? visible : requested;
  std::vector<int> dev(static_cast<std::size_t>(c), first);
  if (n > 1)
    for (int r = 0; r < c; ++r) dev[static_cast<std::size_t>(r)] = r % n;
  return dev;
}

// The distinct devices of a placement, in order of first use.
inline std::vector<int> devices_used(const std::vector<int>& placement) {
  std::vector<int> out;
  for (int d : placement) {
    bool seen = false;
    for (int u : out) seen = seen || u == d;
    if (!seen) out.push_back(d);
  }
  return out;
}

}  // namespace rb::ring
