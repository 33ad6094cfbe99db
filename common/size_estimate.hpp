// Memory estimates of configurations the user may size at will (S up to 2^40, heads and D up to
// 2^31): their products exceed int64. Estimates are formed in double, exact below 2^53 and never
// wrapping, then saturated: an impossible size reads as INT64_MAX, which every limit refuses, so
// such a configuration is skipped with its reason instead of allocating a wrapped size.
#pragma once

#include <cstdint>
#include <limits>

namespace rb {

inline std::int64_t saturated_bytes(double bytes) {
  constexpr double kMax = 9.2e18;  // below INT64_MAX (9.22e18), where double still converts exactly
  if (!(bytes < kMax)) return std::numeric_limits<std::int64_t>::max();
  return bytes <= 0 ? 0 : static_cast<std::int64_t>(bytes);
}

}  // namespace rb
