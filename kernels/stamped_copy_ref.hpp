// CPU twin of the stamped copy (kernels/stamped_copy.cuh): the same bytes moved and the same stamp
// folded, with the steady clock standing in for %globaltimer.
#pragma once

#include <cstdint>

#include "kernels/exec_stamp.hpp"

namespace rb::kernels::ref {

struct StampedCopyParams {
  void* dst = nullptr;
  const void* src = nullptr;
  std::int64_t bytes = 0;
  ExecStamp* stamp = nullptr;  // folded with the copy's start and end
};

// Throws rb::Error for negative bytes or a null pointer with bytes > 0.
void stamped_copy(const StampedCopyParams& p);

}  // namespace rb::kernels::ref
