// Composing the ring's steps from ranks that each ran alone (see isolated_ring.hpp).
#include "ring/cuda/isolated_ring.hpp"

#include <algorithm>
#include <utility>

#include "common/error.hpp"

namespace rb::ring {

IsolatedRing::IsolatedRing(std::vector<std::vector<std::int64_t>> step_ends) : ends_(std::move(step_ends)) {
  const std::size_t n = ends_.empty() ? 0 : ends_.front().size();
  std::vector<std::int64_t> longest(n, 0);
  for (const auto& ends : ends_) {
    if (ends.size() != n) throw Error("isolated ring: ranks with different step counts");
    for (std::size_t j = 0; j < n; ++j) longest[j] = std::max(longest[j], ends[j] - (j ? ends[j - 1] : 0));
  }
  start_.assign(n + 1, 0);
  for (std::size_t j = 0; j < n; ++j) start_[j + 1] = start_[j] + longest[j];
}

std::int64_t IsolatedRing::shift_ns(int i, int j) const {
  const auto& ends = ends_.at(static_cast<std::size_t>(i));
  return step_start_ns(j) - (j ? ends.at(static_cast<std::size_t>(j - 1)) : 0);
}

}  // namespace rb::ring
