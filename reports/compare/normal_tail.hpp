// The standard normal's upper tail, P(Z > z): the large-sample approximation both rank tests
// (mann_whitney.hpp, signed_rank.hpp) fall back on.
#pragma once

#include <cmath>

namespace rb::reports {

inline double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace rb::reports
