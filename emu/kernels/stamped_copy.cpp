// The emulated stamped copy launcher (kernels/stamped_copy.cuh): the device launcher's checks, then
// the twin (ref::stamped_copy): the bytes moved, and the copy's start and end folded into the stamp
// as the kernel's atomicMax calls fold them, on the steady clock that stands in for %globaltimer
// (emu/kernels/launcher_support.hpp: the clock the pace and the emulator's events read too). A copy
// of 0 bytes still stamps. The stamp is read and written (a fold), src read, dst written.
#include <cstdint>
#include <string>
#include <utility>

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

}  // namespace rb::kernels
