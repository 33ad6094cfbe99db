// The emulated stamped copy launcher (kernels/stamped_copy.cuh): the device launcher's checks, then
// the twin (ref::stamped_copy): the bytes moved, and the copy's start and end folded into the stamp
// as the kernel's atomicMax calls fold them, on the steady clock that stands in for %globaltimer
// (emu/kernels/launcher_support.hpp: the clock the pace and the emulator's events read too). A copy
// of 0 bytes still stamps. The stamp is read and written (a fold), src read, dst written. The 2-D
// form (stamped_copy_2d) likewise, row by row.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "emu/kernels/launcher_support.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/stamped_copy.cuh"
#include "kernels/stamped_copy_ref.hpp"

namespace rb::kernels {

void stamped_copy(const StampedCopyParams& p, cudaStream_t stream) {
  // The check of kernels/stamped_copy.cu, with its message.
  if (p.bytes < 0 || p.stamp == nullptr || (p.bytes > 0 && (p.dst == nullptr || p.src == nullptr)))
    throw Error("stamped_copy (cuda): " + std::to_string(p.bytes) + " bytes, null pointer or stamp");
  const auto n = static_cast<std::size_t>(p.bytes);
  auto acc = emu::launchers::accesses({emu::reads(p.src, n), emu::writes(p.dst, n),
                                       emu::reads(p.stamp, sizeof(ExecStamp)),
                                       emu::writes(p.stamp, sizeof(ExecStamp))});
  const ref::StampedCopyParams rp{p.dst, p.src, p.bytes, p.stamp};
  RB_CUDA_CHECK(emu::launch(stream, "stamped_copy", std::move(acc), [rp] { ref::stamped_copy(rp); }));
}

// The 2-D copy: the shared checks, then its twin; each row read and written where it lies (or one
// range each side where the rows are contiguous), so the bytes between strided rows stay free.
void stamped_copy_2d(const StampedCopy2dParams& p, cudaStream_t stream) {
  check_stamped_copy_2d_launch(p);
  std::vector<emu::Access> acc = {emu::reads(p.stamp, sizeof(ExecStamp)), emu::writes(p.stamp, sizeof(ExecStamp))};
  const auto width = static_cast<std::size_t>(p.width);
  auto side = [&](const void* base, std::int64_t pitch, bool write) {
    const bool whole = pitch == p.width;
    for (std::int64_t r = 0; r < (whole ? std::min<std::int64_t>(p.rows, 1) : p.rows) && width > 0; ++r) {
      const void* at = static_cast<const unsigned char*>(base) + r * pitch;
      const std::size_t n = whole ? width * static_cast<std::size_t>(p.rows) : width;
      acc.push_back(write ? emu::writes(at, n) : emu::reads(at, n));
    }
  };
  side(p.src, p.src_pitch, false);
  side(p.dst, p.dst_pitch, true);
  const ref::StampedCopy2dParams rp{p.dst, p.dst_pitch, p.src, p.src_pitch, p.width, p.rows, p.stamp};
  RB_CUDA_CHECK(emu::launch(stream, "stamped_copy_2d", std::move(acc), [rp] { ref::stamped_copy_2d(rp); }));
}

}  // namespace rb::kernels
