// The ring composed from ranks that ran alone (the CUDA backend's isolated mode): each step lasts
// its slowest rank's step, the pass is their sum, and a rank's times move onto the ring's clock.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "ring/cuda/isolated_ring.hpp"

namespace rb::ring {
namespace {

TEST(IsolatedRing, EachStepLastsItsSlowestRanksStep) {
  // rank 0's steps last 10, 5, 7; rank 1's 4, 9, 7.
  const IsolatedRing ring({{10, 15, 22}, {4, 13, 20}});
  EXPECT_EQ(ring.step_start_ns(0), 0);
  EXPECT_EQ(ring.step_start_ns(1), 10);
  EXPECT_EQ(ring.step_start_ns(2), 19);
  EXPECT_EQ(ring.wall_ns(), 26);
  EXPECT_EQ(ring.step_start_ns(3), ring.wall_ns());
}

TEST(IsolatedRing, ShiftPlacesARanksStepAtTheRingsStep) {
  const IsolatedRing ring({{10, 15, 22}, {4, 13, 20}});
  // Rank 1's step 1 began at 4 on its own clock and starts at 10 on the ring's.
  EXPECT_EQ(ring.shift_ns(1, 1), 6);
  EXPECT_EQ(ring.shift_ns(1, 0), 0);
  EXPECT_EQ(ring.shift_ns(1, 2), 19 - 13);
  EXPECT_EQ(ring.shift_ns(0, 2), 19 - 15);
  // The slowest rank of a step (rank 1 at step 1) ends it where the ring's next step begins; a
  // faster one (rank 0) ends early.
  EXPECT_EQ(13 + ring.shift_ns(1, 1), ring.step_start_ns(2));
  EXPECT_LT(15 + ring.shift_ns(0, 1), ring.step_start_ns(2));
}

TEST(IsolatedRing, OneRankIsItsOwnRing) {
  const IsolatedRing ring({{3, 8}});
  EXPECT_EQ(ring.wall_ns(), 8);
  EXPECT_EQ(ring.shift_ns(0, 1), 0);
}

TEST(IsolatedRing, RefusesRanksOfDifferentStepCounts) {
  EXPECT_THROW(IsolatedRing({{1, 2}, {1}}), Error);
  EXPECT_EQ(IsolatedRing({}).wall_ns(), 0);
}

}  // namespace
}  // namespace rb::ring
