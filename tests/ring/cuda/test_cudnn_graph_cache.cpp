// The process's cuDNN graphs (ring/cuda/cudnn_graph_cache.hpp) with a stand-in for cuDNN: over two
// configurations of the cudnn kernel, their ranks dealt over two devices, three rounds each with a
// fresh executor, every (device, shape) is built exactly once, by the first executor to need it,
// with the composite implementation; each device's handle is opened once; release drains each
// device before dropping its graphs and closing its handle, once, and nothing is used after it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "ring/cuda/cudnn_graph_cache.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/sdpa_pieces.hpp"

namespace rb::ring {
namespace {

// What the stand-in was asked to do, in order.
using Log = std::vector<std::string>;

struct StandInHandle {
  int device = -1;
};

// A built graph that notes when it is dropped.
struct StandInGraph {
  StandInGraph(Log* l, std::string n) : log(l), name(std::move(n)) {}
  ~StandInGraph() { log->push_back("drop " + name); }
  StandInGraph(const StandInGraph&) = delete;
  StandInGraph& operator=(const StandInGraph&) = delete;
  Log* log;
  std::string name;
};

using StandInCache = CudnnGraphCache<StandInHandle, std::shared_ptr<StandInGraph>>;

StandInCache::Ops stand_in(Log& log, double& now, std::set<std::string>* refuse_once = nullptr) {
  StandInCache::Ops ops;
  ops.open = [&log](int device) {
    log.push_back(fmt::format("open {}", device));
    return StandInHandle{device};
  };
  ops.build = [&log, refuse_once](StandInHandle& h, int device, const SdpaGraphKey& key, SdpaGraphFacts& facts) {
    const std::string name = fmt::format("{} {}", device, graph_name(key));
    if (h.device != device) throw Error("built on another device's handle");
    if (refuse_once != nullptr && refuse_once->erase(graph_name(key)) > 0) throw Error("no plan for " + name);
    log.push_back("build " + name);
    facts.plan = "stand-in engine";
    facts.workspace = key.rows;
    return std::make_shared<StandInGraph>(&log, name);
  };
  ops.drain = [&log](int device) { log.push_back(fmt::format("drain {}", device)); };
  ops.close = [&log](int device, StandInHandle& h) {
    log.push_back(fmt::format("close {} (handle of {})", device, h.device));
  };
  ops.clock_ms = [&now] { return now += 400; };  // each build takes 400 ms on this clock
  return ops;
}

Config cudnn_config(std::int64_t seq, int cp, Split split) {
  Config cfg;
  cfg.seq = seq;
  cfg.cp = cp;
  cfg.split = split;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = 64;
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  cfg.kernel = Kernel::cudnn;
  return cfg;
}

// One executor's set-up, as CudaExecutor makes it: a user per device, every hosted rank's pieces
// prepared on its device (rank r on device r % 2). Returns what it used.
CudnnGraphsUsed one_executor(StandInCache& cache, const Plan& plan, std::set<std::pair<int, SdpaGraphKey>>& wanted) {
  std::map<int, CudnnGraphUser<StandInCache>> users;
  for (int r = 0; r < plan.config.cp; ++r) {
    const int device = r % 2;
    auto& user = users.try_emplace(device, cache, device).first->second;
    for (const auto& step : sdpa_steps(plan, r))
      for (const auto& piece : step.pieces) {
        const SdpaGraphKey key = graph_key(piece, plan.config);
        EXPECT_EQ(user.prepare(key).facts.workspace, key.rows);
        EXPECT_EQ(&user.entry(key), &user.prepare(key));  // found again, not rebuilt
        wanted.emplace(device, key);
      }
  }
  CudnnGraphsUsed used;
  for (const auto& [device, user] : users) used.merge(user.used());
  return used;
}

TEST(CudnnGraphCache, EachDeviceAndShapeIsBuiltOnceAcrossExecutorsAndRounds) {
  Log log;
  double now = 0;
  StandInCache cache(stand_in(log, now));
  const std::vector<Plan> plans = {make_plan(cudnn_config(512, 4, Split::zigzag)),
                                   make_plan(cudnn_config(512, 4, Split::striped))};
  std::set<std::pair<int, SdpaGraphKey>> wanted;
  int builds_reported = 0;
  for (const Plan& plan : plans)
    for (int round = 0; round < 3; ++round) {
      const CudnnGraphsUsed used = one_executor(cache, plan, wanted);
      SCOPED_TRACE(plan.config.label() + " round " + std::to_string(round));
      ASSERT_FALSE(used.shapes.empty());
      if (round > 0) {
        EXPECT_EQ(used.builds, 0) << "a later round rebuilt a graph";
      }
      EXPECT_DOUBLE_EQ(used.build_ms, 400.0 * used.builds);
      for (const auto& [name, facts] : used.shapes) {
        EXPECT_EQ(facts.implementation, SdpaImplementation::composite) << name;
        EXPECT_EQ(facts.plan, "stand-in engine") << name;
        EXPECT_DOUBLE_EQ(facts.build_ms, 400.0) << name;  // its own build's time, whoever built it
      }
      builds_reported += used.builds;
    }
  ASSERT_GT(wanted.size(), 4u);
  EXPECT_EQ(cache.builds(), static_cast<int>(wanted.size()));
  EXPECT_EQ(builds_reported, static_cast<int>(wanted.size()));
  std::map<std::string, int> built;
  for (const auto& line : log) ++built[line];
  for (const auto& [device, key] : wanted)
    EXPECT_EQ(built[fmt::format("build {} {}", device, graph_name(key))], 1) << device << " " << graph_name(key);
  EXPECT_EQ(built["open 0"], 1);
  EXPECT_EQ(built["open 1"], 1);

  // Release: each device drained, then its graphs dropped, then its handle closed; once.
  log.clear();
  EXPECT_EQ(cache.release(), 2);
  std::vector<std::string> order;  // "drain 0", "drop 0", ...: a device's drops as one
  for (const auto& line : log) {
    const std::string token = line.substr(0, line.find(' ') + 2);
    if (order.empty() || order.back() != token) order.push_back(token);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"drain 0", "drop 0", "close 0", "drain 1", "drop 1", "close 1"}));
  EXPECT_EQ(std::count(log.begin(), log.end(), "close 1 (handle of 1)"), 1);
  EXPECT_EQ(std::count_if(log.begin(), log.end(), [](const std::string& l) { return l.rfind("drop ", 0) == 0; }),
            static_cast<long>(wanted.size()));
  log.clear();
  EXPECT_EQ(cache.release(), 0);
  EXPECT_TRUE(log.empty()) << log.front();
  EXPECT_THROW(cache.get(0, wanted.begin()->second), Error);
  EXPECT_THROW(cache.handle(0), Error);
}

TEST(CudnnGraphCache, AFailedBuildKeepsNothingAndIsTriedAgain) {
  Log log;
  double now = 0;
  const SdpaGraphKey key{512, 512, SdpaMask::causal_top_left, 4, 2, 64};
  std::set<std::string> refuse{graph_name(key)};
  StandInCache cache(stand_in(log, now, &refuse));
  CudnnGraphUser<StandInCache> first(cache, 0);
  EXPECT_THROW(first.prepare(key), Error);
  EXPECT_EQ(cache.builds(), 0);
  EXPECT_THROW(first.entry(key), Error);  // never prepared
  CudnnGraphUser<StandInCache> second(cache, 0);
  EXPECT_EQ(second.prepare(key).facts.workspace, 512);
  EXPECT_EQ(second.used().builds, 1);
  EXPECT_EQ(cache.builds(), 1);
}

// A cache never released (a test's) releases as it goes; the process's is released explicitly.
TEST(CudnnGraphCache, ACacheNeverReleasedReleasesWhenDestroyed) {
  Log log;
  double now = 0;
  {
    StandInCache cache(stand_in(log, now));
    (void)cache.get(3, SdpaGraphKey{64, 64, SdpaMask::none, 4, 2, 64});
  }
  EXPECT_EQ(log, (Log{"open 3", "build 3 64x64 Hq=4 Hkv=2 D=64", "drain 3", "drop 3 64x64 Hq=4 Hkv=2 D=64",
                      "close 3 (handle of 3)"}));
}

}  // namespace
}  // namespace rb::ring
