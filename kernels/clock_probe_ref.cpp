// CPU twin of the clock probe.
#include "kernels/clock_probe_ref.hpp"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "common/error.hpp"

namespace rb::kernels::ref {

void clock_probe(const ClockProbeParams& p) {
  if (p.out == nullptr) throw Error("clock_probe: null stamp");
  for (const std::uint32_t sm : p.block_sms) {
    if (!clock_probe_writes(sm)) continue;
    const auto ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
#if defined(__x86_64__) || defined(__i386__)
    const std::uint64_t cycles = __rdtsc();
#else
    const std::uint64_t cycles = ns;  // no portable cycle counter: a 1 GHz clock
#endif
    if (p.out->sm != kNoSm) continue;  // claimed by an earlier block
    p.out->sm = sm;
    p.out->ns = ns;
    p.out->cycles = cycles;
  }
}

}  // namespace rb::kernels::ref
