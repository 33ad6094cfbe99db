// The cudnn kernel's graphs as a results file of the cuda backend shows them (results 2.9.0), made
// on the CPU: a gpu-check configuration's SDPA pieces prepared over three rounds, each a fresh
// executor, on the process's graph cache with a stand-in for cuDNN's builder (each build 400 ms on a
// fixed clock), recorded as the sweep records them (kernel_choice_record, add_cudnn_graphs) and
// written through the one writer. The file must equal tests/data/golden/records/cudnn-graphs.json:
// every shape's implementation (composite: cudnn_graph_cache.hpp's choice), its plan and build time,
// the builds of all three rounds (each shape once) beside cudnn_plans. It must read back through the
// one reader and the record as written. RINGBENCH_UPDATE_GOLDEN=1 rewrites the golden file (after a
// change made on purpose: review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/sweep/kernel_choice.hpp"
#include "bench/sweep/result_record.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"
#include "reports/results/run_record.hpp"
#include "reports/results/run_record_writer.hpp"
#include "ring/cuda/cudnn_graph_cache.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/sdpa_pieces.hpp"
#include "tiny_sweep.hpp"

namespace rb::bench {
namespace {

using StandIn = ring::CudnnGraphCache<int, std::shared_ptr<int>>;

StandIn::Ops stand_in(double& now) {
  StandIn::Ops ops;
  ops.open = [](int device) { return device; };
  ops.build = [](int&, int, const ring::SdpaGraphKey&, ring::SdpaGraphFacts& facts) {
    facts.plan = "stand-in: no GPU built this plan";
    return std::make_shared<int>(0);
  };
  ops.drain = [](int) {};
  ops.close = [](int, int&) {};
  ops.clock_ms = [&now] { return now += 400; };
  return ops;
}

// One of profiles/gpu-check-cudnn.json's configurations, at c = 2 so the plan stays short.
Config gpu_check_config() {
  Config cfg;
  cfg.seq = 32768;
  cfg.cp = 2;
  cfg.split = Split::zigzag;
  cfg.variant = Variant::ring;
  cfg.heads = 16;
  cfg.kv_heads = 2;
  cfg.head_dim = 128;
  cfg.causal = true;
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  cfg.transport = Transport::local;
  cfg.kernel = Kernel::cudnn;
  cfg.seed = 1;
  cfg.repeats = 10;
  cfg.warmup = 2;
  return cfg;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CudnnRecordGolden, TheGraphsImplementationAndBuildsAsAResultsFileShowsThem) {
  const Config cfg = gpu_check_config();
  const ring::Plan plan = ring::make_plan(cfg);
  double now = 0;
  StandIn cache(stand_in(now));
  ring::CudnnGraphsUsed latest;
  int builds = 0;
  double build_ms = 0;
  std::set<ring::SdpaGraphKey> shapes;
  for (int round = 0; round < 3; ++round) {
    ring::CudnnGraphUser<StandIn> user(cache, 0);  // a fresh executor, every rank on device 0
    for (int r = 0; r < cfg.cp; ++r)
      for (const auto& step : ring::sdpa_steps(plan, r))
        for (const auto& piece : step.pieces) {
          (void)user.prepare(ring::graph_key(piece, cfg));
          shapes.insert(ring::graph_key(piece, cfg));
        }
    latest = user.used();
    builds += latest.builds;
    build_ms += latest.build_ms;
  }
  ASSERT_EQ(builds, static_cast<int>(shapes.size()));

  reports::RunRecord rec =
      failed_record(cfg, "no GPU: made on the CPU with a stand-in for cuDNN's plan builder, to show the format");
  rec.plan = plan_record(plan);
  rec.kernel_choice = kernel_choice_record(Kernel::cudnn, cfg);
  add_cudnn_graphs(*rec.kernel_choice, latest, builds, build_ms);

  const testing::TempDir dir("cudnn_record_golden");
  {
    reports::ResultsWriter writer(dir.path);
    writer.append(rec);
    writer.finish(nlohmann::json{{"tool",
                                  {{"name", "ringbench"},
                                   {"version", "golden"},
                                   {"git_sha", "golden"},
                                   {"command_line", "test_sweep_stages --gtest_filter=CudnnRecordGolden.*"}}},
                                 {"host", {{"hostname", "golden"}}},
                                 {"profile", {{"name", "gpu-check-cudnn"}}},
                                 {"stopped", nullptr}});
  }
  const std::string text = read_text(dir.path / "results.json");
  const auto golden = std::filesystem::path(RINGBENCH_SOURCE_DIR) / "tests/data/golden/records/cudnn-graphs.json";
  if (const char* update = std::getenv("RINGBENCH_UPDATE_GOLDEN"); update != nullptr && *update != '\0') {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream(golden) << text;
  }
  EXPECT_EQ(text, read_text(golden)) << "results.json now:\n" << text;

  // The one reader takes it, and the record reads back as written.
  const reports::ResultsFile file = reports::read_results(dir.path / "results.json");
  ASSERT_EQ(file.runs().size(), 1u);
  const reports::RunRecord back = reports::read_run_record(file.runs().at(0));
  EXPECT_EQ(reports::to_json(back).dump(), file.runs().at(0).dump());
  ASSERT_TRUE(back.kernel_choice);
  EXPECT_EQ(back.kernel_choice->cudnn_plan_builds, static_cast<std::int64_t>(shapes.size()));
  for (const auto& [shape, g] : back.kernel_choice->cudnn_graphs) {
    EXPECT_EQ(g.implementation, "composite") << shape;
    EXPECT_EQ(g.build_ms, 400.0) << shape;
    EXPECT_TRUE(back.kernel_choice->cudnn_plans.contains(shape)) << shape;
  }
}

}  // namespace
}  // namespace rb::bench
