// NVTX wrappers: ranges nest and unwind with no tool attached (NVTX calls are then no-ops by
// design), and enabled() tells whether they were compiled in.
#include <gtest/gtest.h>

#include "common/nvtx.hpp"

namespace rb::bench {
namespace {

TEST(Nvtx, RangesNestAndNamesApplyWithoutATool) {
  nvtx::name_current_thread("rank 0 compute");
  {
    nvtx::ScopedRange config(std::string(nvtx::kRangeConfig) + " S=1024 c=2");
    for (std::int64_t j = 0; j < 3; ++j) {
      nvtx::ScopedRange step(nvtx::kRangeStep, j);
      nvtx::ScopedRange transfer(nvtx::kRangeTransfer, j + 1);
    }
  }
  nvtx::name_stream(nullptr, "default stream");
#ifdef RINGBENCH_HAVE_NVTX
  EXPECT_TRUE(nvtx::enabled());
#else
  EXPECT_FALSE(nvtx::enabled());
#endif
  EXPECT_STREQ(nvtx::kDomain, "ringbench");
}

}  // namespace
}  // namespace rb::bench
