// The per-GPU rate's divisor, by mode x devices (the headline of docs/metrics.md): ranks that run one
// at a time or each on a device of their own count one GPU each; ranks that run at once on shared
// devices count the devices.
#include <gtest/gtest.h>

#include "common/gpus_at_work.hpp"

namespace rb {
namespace {

TEST(GpusAtWork, IsolatedCountsRanksConcurrentCountsDevices) {
  EXPECT_EQ(gpus_at_work(8, false, 1), 8);  // isolated mode on one GPU
  EXPECT_EQ(gpus_at_work(8, false, 8), 8);  // nccl, one GPU per process
  EXPECT_EQ(gpus_at_work(8, true, 1), 1);   // concurrent, all 8 on one GPU
  EXPECT_EQ(gpus_at_work(8, true, 2), 2);   // concurrent, dealt over 2 GPUs
  EXPECT_EQ(gpus_at_work(8, true, 8), 8);
  EXPECT_EQ(gpus_at_work(4, true, 8), 4);  // never more GPUs than ranks
  EXPECT_EQ(gpus_at_work(4, true, 0), 1);
  EXPECT_EQ(gpus_at_work(0, false, 3), 1);
}

}  // namespace
}  // namespace rb
