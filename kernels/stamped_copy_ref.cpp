// CPU twin of the stamped copy.
#include "kernels/stamped_copy_ref.hpp"

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::kernels::ref {
namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

void stamped_copy(const StampedCopyParams& p) {
  if (p.bytes < 0 || p.stamp == nullptr || (p.bytes > 0 && (p.dst == nullptr || p.src == nullptr)))
    throw Error(fmt::format("stamped_copy: {} bytes from {} to {} with stamp {}", p.bytes, p.src, p.dst,
                            static_cast<const void*>(p.stamp)));
  const std::uint64_t begin = now_ns();
  if (p.bytes > 0) std::memcpy(p.dst, p.src, static_cast<std::size_t>(p.bytes));
  fold_stamp(*p.stamp, begin, now_ns());
}

}  // namespace rb::kernels::ref
