// The CPU backend's clock: steady_clock in nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>

namespace rb::ring {

inline std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace rb::ring
