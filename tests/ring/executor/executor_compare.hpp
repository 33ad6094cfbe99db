// What the executor tests compare outputs with: every position of a sequence, and the largest
// elementwise difference (a size mismatch or a NaN is an error no tolerance passes). One definition
// for every test file, so the unity build of the test executables sees one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rb::ring {

inline std::vector<std::int64_t> all_positions(std::int64_t S) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(S));
  for (std::int64_t i = 0; i < S; ++i) p[static_cast<std::size_t>(i)] = i;
  return p;
}

inline double max_err(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return 1e300;
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return std::isnan(m) ? 1e300 : m;
}

}  // namespace rb::ring
