// HTA's kernel-name classification (see kernel_classify.hpp).
#include "bench/measure/kernel_classify.hpp"

namespace rb::bench {

IntervalKind classify_kernel_name(std::string_view name) {
  // Equivalent to HTA's regexes (names hold no newlines, so `.*` spans the whole name) without
  // std::regex, which would dominate the reading of a large trace.
  if (name.starts_with("nccl") || name.find("ncclKernel") != std::string_view::npos) return IntervalKind::comm;
  if (name.starts_with("Memcpy") || name.starts_with("Memset")) return IntervalKind::memory;
  return IntervalKind::compute;
}

std::optional<IntervalKind> parse_interval_kind(std::string_view s) {
  for (auto k : {IntervalKind::compute, IntervalKind::comm, IntervalKind::memory, IntervalKind::comm_in_flight,
                 IntervalKind::other}) {
    if (s == to_string(k)) return k;
  }
  return std::nullopt;
}

}  // namespace rb::bench
