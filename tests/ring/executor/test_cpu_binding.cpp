// Where the CPU backend's compute threads run: the rank → CPU rule, the flag's spelling, and what an
// executor does to its threads' affinity, read back from the OS.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sched.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "common/error.hpp"
#include "ring/executor/cpu_binding.hpp"
#include "ring/executor/executor.hpp"

namespace rb::ring {
namespace {

TEST(CpuBinding, RanksTakeTheAllowedCpusInTurn) {
  const std::vector<int> allowed{2, 3, 7};
  EXPECT_EQ(cpu_for_rank(0, allowed), 2);
  EXPECT_EQ(cpu_for_rank(1, allowed), 3);
  EXPECT_EQ(cpu_for_rank(2, allowed), 7);
  EXPECT_EQ(cpu_for_rank(3, allowed), 2);              // more ranks than CPUs: they share, in turn
  EXPECT_EQ(cpu_for_rank(5, std::vector<int>{4}), 4);  // a launcher bound the process to one CPU
  EXPECT_THROW(cpu_for_rank(-1, allowed), Error);
  EXPECT_THROW(cpu_for_rank(0, {}), Error);
}

TEST(CpuBinding, SpelledRanksOrNone) {
  EXPECT_EQ(parse_cpu_binding("ranks"), CpuBinding::ranks);
  EXPECT_EQ(parse_cpu_binding("none"), CpuBinding::none);
  for (auto b : {CpuBinding::ranks, CpuBinding::none}) EXPECT_EQ(parse_cpu_binding(to_string(b)), b);
  try {
    parse_cpu_binding("core");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--cpu-bind");
    EXPECT_EQ(e.value(), "core");
  }
}

TEST(CpuBinding, AllowedCpusAreTheProcessMask) {
  const std::vector<int> cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(static_cast<int>(cpus.size()), CPU_COUNT(&set));
}

// Each thread of this process whose mask is narrower than the process's: tid → its CPUs.
std::map<int, std::set<int>> narrowed_threads() {
  const std::vector<int> all = allowed_cpus();
  std::map<int, std::set<int>> out;
  DIR* d = opendir("/proc/self/task");
  if (!d) return out;
  while (const dirent* e = readdir(d)) {
    const int tid = std::atoi(e->d_name);
    if (tid <= 0) continue;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(tid, sizeof set, &set) != 0) continue;
    std::set<int> mine;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) mine.insert(c);
    if (mine.size() < all.size()) out[tid] = mine;
  }
  closedir(d);
  return out;
}

Plan binding_plan(int c) {
  Config cfg;
  cfg.seq = 64LL * c;
  cfg.cp = c;
  cfg.split = Split::zigzag;
  cfg.heads = 2;
  cfg.kv_heads = 1;
  cfg.head_dim = 8;
  cfg.dtype = DType::float32;
  return make_plan(cfg);
}

TEST(CpuBinding, AnExecutorBindsOneComputeThreadPerRank) {
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU allowed: every thread is bound already";
  ASSERT_TRUE(narrowed_threads().empty()) << "the test process starts unbound";
  const int c = 3;
  const Plan plan = binding_plan(c);
  {
    auto ex = make_cpu_executor(plan, CpuOptions{.binding = CpuBinding::ranks});
    ex->run_pass(false);
    const auto bound = narrowed_threads();
    ASSERT_EQ(static_cast<int>(bound.size()), c) << "the compute threads, not the comm threads";
    std::multiset<int> got, want;
    for (const auto& [tid, set] : bound) {
      ASSERT_EQ(set.size(), 1u);
      got.insert(*set.begin());
    }
    for (int r = 0; r < c; ++r) want.insert(cpu_for_rank(r, cpus));
    EXPECT_EQ(got, want);
  }
  EXPECT_TRUE(narrowed_threads().empty()) << "the bound threads end with their executor";
  auto ex = make_cpu_executor(plan, CpuOptions{.binding = CpuBinding::none});
  ex->run_pass(false);
  EXPECT_TRUE(narrowed_threads().empty());
}

}  // namespace
}  // namespace rb::ring
