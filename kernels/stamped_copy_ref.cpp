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

void stamped_copy_2d(const StampedCopy2dParams& p) {
  if (p.width < 0 || p.rows < 0 || p.dst_pitch < p.width || p.src_pitch < p.width || p.stamp == nullptr ||
      (p.width > 0 && p.rows > 0 && (p.dst == nullptr || p.src == nullptr)))
    throw Error(fmt::format("stamped_copy_2d: {} rows of {} bytes, pitches {} and {}, from {} to {} with stamp {}",
                            p.rows, p.width, p.dst_pitch, p.src_pitch, p.src, p.dst,
                            static_cast<const void*>(p.stamp)));
  const std::uint64_t begin = now_ns();
  for (std::int64_t r = 0; r < p.rows && p.width > 0; ++r)
    std::memcpy(static_cast<unsigned char*>(p.dst) + r * p.dst_pitch,
                static_cast<const unsigned char*>(p.src) + r * p.src_pitch, static_cast<std::size_t>(p.width));
  fold_stamp(*p.stamp, begin, now_ns());
}

}  // namespace rb::kernels::ref
