// Placing ranks on devices: round-robin over the devices asked for, everything on one device when
// one is, bad requests named; and a process of a launched job taking its launcher's local rank.
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ring/cuda/rank_placement.hpp"

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

// The launcher's variables in the order ringbench reads them; each test sets what it needs and
// clears the rest, so the machine's own environment cannot leak in.
class LauncherLocalRank : public ::testing::Test {
 protected:
  static constexpr const char* kNames[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"};
  void SetUp() override {
    for (const char* n : kNames) {
      if (const char* v = std::getenv(n)) saved_.emplace_back(n, v);
      unsetenv(n);
    }
  }
  void TearDown() override {
    for (const char* n : kNames) unsetenv(n);
    for (const auto& [n, v] : saved_) setenv(n.c_str(), v.c_str(), 1);
  }
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(LauncherLocalRank, FallsBackWithoutALauncher) { EXPECT_EQ(launcher_local_rank(5), 5); }

TEST_F(LauncherLocalRank, ReadsTheFirstLauncherThatSetsAnIndex) {
  setenv("MPI_LOCALRANKID", "3", 1);
  EXPECT_EQ(launcher_local_rank(0), 3);
  setenv("SLURM_LOCALID", "2", 1);
  EXPECT_EQ(launcher_local_rank(0), 2);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  EXPECT_EQ(launcher_local_rank(0), 1);
}

TEST_F(LauncherLocalRank, SkipsValuesThatAreNotAnIndex) {
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "", 1);
  setenv("SLURM_LOCALID", "-1", 1);
  setenv("MPI_LOCALRANKID", "2x", 1);
  EXPECT_EQ(launcher_local_rank(7), 7);
  setenv("MPI_LOCALRANKID", "4", 1);
  EXPECT_EQ(launcher_local_rank(7), 4);
}

TEST(ProcessDevice, DealsLocalRanksOverTheVisibleDevices) {
  EXPECT_EQ(process_device(0, 8), 0);
  EXPECT_EQ(process_device(5, 8), 5);
  EXPECT_EQ(process_device(9, 8), 1);
  EXPECT_EQ(process_device(3, 1), 0);
  EXPECT_THROW(process_device(0, 0), Error);
}

// A nccl job may run a node's GPUs' worth of ranks on every node (2 nodes x 8 GPUs for --cp 16),
// but not more on one node: two ranks would share a GPU, which NCCL refuses.
TEST(RanksFitNode, AtMostOneRankPerVisibleGpuOnEachNode) {
  EXPECT_NO_THROW(check_ranks_fit_node(8, 8));  // each node of a 2 x 8 job, --cp 16
  EXPECT_NO_THROW(check_ranks_fit_node(1, 1));
  EXPECT_NO_THROW(check_ranks_fit_node(4, 8));
  try {
    check_ranks_fit_node(2, 1);
    FAIL() << "two ranks on one GPU passed";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "transport");
    EXPECT_NE(e.rule().find("runs 2 ranks of the ring but sees 1 CUDA device"), std::string::npos) << e.rule();
  }
  EXPECT_THROW(check_ranks_fit_node(16, 8), InputError);
}

}  // namespace
}  // namespace rb::ring
