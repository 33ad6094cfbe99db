// The emulated pace launcher (kernels/link_pace.cuh): what the pace kernel does, on the host when
// the op runs. It waits until the emulated %globaltimer (the steady clock, emu/kernels/
// launcher_support.hpp, the clock the stamped copy before it stamped its start with) reaches the
// stamp's start + ns, then folds that moment into the stamp's end with a max. As on the device, the
// sum wraps when the stamp was never started (its start reads ~0), and then there is no wait. The
// stamp is read and written.
#include <chrono>
#include <cstdint>
#include <thread>

#include "emu/kernels/launcher_support.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/link_pace.cuh"

namespace rb::kernels {
namespace {

// Returns the first reading of the emulated %globaltimer at or after `until`: sleeps while the wait
// is long, then yields, so a pace ends within microseconds of its mark (the kernel's __nanosleep
// loop ends within a few hundred nanoseconds of it).
std::uint64_t pace_until(std::uint64_t until) {
  constexpr std::uint64_t kSpinNs = 200'000;
  std::uint64_t now = emu::launchers::global_timer_ns();
  while (now < until) {
    if (until - now > kSpinNs)
      std::this_thread::sleep_for(std::chrono::nanoseconds(until - now - kSpinNs));
    else
      std::this_thread::yield();
    now = emu::launchers::global_timer_ns();
  }
  return now;
}

}  // namespace

void link_pace(ExecStamp* stamp, std::int64_t ns, cudaStream_t stream) {
  auto work = [stamp, ns] {
    const std::uint64_t now = pace_until(stamp_begin(*stamp) + static_cast<std::uint64_t>(ns));
    if (now > stamp->end) stamp->end = now;
  };
  RB_CUDA_CHECK(emu::launch(stream, "link_pace",
                            {emu::reads(stamp, sizeof(ExecStamp)), emu::writes(stamp, sizeof(ExecStamp))}, work));
}

}  // namespace rb::kernels
