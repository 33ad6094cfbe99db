// What the emulated kernel launchers (emu/kernels/*.cpp) share: the emulated %globaltimer, bf16
// storage read as the floats it holds, and a launch's list of accesses.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <cuda_bf16.h>

#include "emu/runtime/emu_device.hpp"

namespace rb::emu::launchers {

// The emulated device's %globaltimer: the host's steady clock in nanoseconds. It is the clock the
// CPU twins stamp with (ref::stamped_copy, ref::clock_probe) and the one the emulator times events
// and ops by, so a copy's start stamp, the pace that waits on it and the events around both read
// one clock. The host never converts a device stamp to its own clock anyway: it places execution
// windows by their distance from the latest end stamp (kernels/exec_stamp.hpp) and reads the SM
// clock as cycles over stamp differences (kernels/clock_stamp.hpp).
inline std::uint64_t global_timer_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// n bf16 values as floats (exact: every bf16 is a float).
inline void bf16_to_float(const __nv_bfloat16* src, std::size_t n, float* dst) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = __bfloat162float(src[i]);
}

// A launch's accesses, less the empty ones: a range of no bytes touches nothing, and its pointer
// may be null (a copy of 0 bytes), which the emulator would take for an access outside every
// allocation.
inline std::vector<Access> accesses(std::initializer_list<Access> list) {
  std::vector<Access> out;
  for (const Access& a : list)
    if (a.bytes > 0) out.push_back(a);
  return out;
}

// Bytes of n elements of T, for an element count the launcher has already checked is not negative.
template <typename T>
std::size_t bytes_of(std::int64_t n) {
  return n > 0 ? static_cast<std::size_t>(n) * sizeof(T) : 0;
}

}  // namespace rb::emu::launchers
