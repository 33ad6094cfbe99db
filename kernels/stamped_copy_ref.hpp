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

// `rows` rows of `width` bytes, each at its pitch on either side; the bytes between rows untouched.
struct StampedCopy2dParams {
  void* dst = nullptr;
  std::int64_t dst_pitch = 0;
  const void* src = nullptr;
  std::int64_t src_pitch = 0;
  std::int64_t width = 0, rows = 0;
  ExecStamp* stamp = nullptr;
};

// Throws rb::Error for a negative size, a pitch shorter than the width, a null pointer with bytes to
// move, or no stamp.
void stamped_copy_2d(const StampedCopy2dParams& p);

}  // namespace rb::kernels::ref
