// Placing virtual ranks on devices: round-robin over the devices asked for, everything on one
// device when one is, and bad requests named.
#include <gtest/gtest.h>

#include "ring/rank_placement.hpp"

namespace rb::ring {
namespace {

TEST(RankPlacement, OneDeviceKeepsEveryRankOnTheChosenOne) {
  EXPECT_EQ(place_ranks(4, 1, 8, 3), (std::vector<int>{3, 3, 3, 3}));
  EXPECT_EQ(place_ranks(4, 0, 1, 0), (std::vector<int>{0, 0, 0, 0}));  // "all" of one device
}

TEST(RankPlacement, SeveralDevicesDealRanksRoundRobin) {
  EXPECT_EQ(place_ranks(8, 0, 8, 0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(place_ranks(8, 4, 8, 0), (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(place_ranks(2, 0, 4, 0), (std::vector<int>{0, 1}));
  EXPECT_EQ(devices_used(place_ranks(8, 4, 8, 0)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(devices_used(place_ranks(2, 0, 4, 0)), (std::vector<int>{0, 1}));
}

TEST(RankPlacement, BadRequestsAreInputErrors) {
  EXPECT_THROW(place_ranks(4, 9, 8, 0), InputError);
  EXPECT_THROW(place_ranks(4, -1, 8, 0), InputError);
  try {
    place_ranks(4, 3, 2, 0);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "devices");
    EXPECT_EQ(e.value(), "3");
  }
}

}  // namespace
}  // namespace rb::ring
