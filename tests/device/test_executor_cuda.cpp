// The CUDA backend end to end: ring attention over c virtual ranks on one GPU equals the float64
// reference within the derived bf16 bound, for every split, both variants, both rank modes, graph
// and eager launch; the graph's output equals the eager pass's bit for bit; the timeline holds
// every step; the link model slows transfers to the stated bandwidth.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "cuda_test_util.hpp"
#include "ring/check/reference.hpp"
#include "ring/cuda/executor_cuda.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/step_launch.hpp"

namespace rb::ring {
namespace {

Config small_config(int c, Split split, Variant variant, int d) {
  Config cfg;
  cfg.seq = 2LL * c * 48;  // every scheme divides it; odd-sized chunks of 48 rows (< one 128-row tile)
  cfg.cp = c;
  cfg.split = split;
  cfg.variant = variant;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = d;
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  return cfg;
}

Correctness check(CudaExecutor& ex) {
  const Plan& plan = ex.plan();
  const auto rows = check_rows(plan);
  const auto out = ex.output_rows(rows.positions);
  const auto ref = reference_rows(plan.config, rows.positions, 2);
  return compare_to_reference(out, ref, plan.config, rows);
}

// The process's cuDNN graphs go before CUDA tears down, as the binary's go at the end of main.
class ReleaseCudnnGraphs : public ::testing::Environment {
 public:
  void TearDown() override { (void)release_cudnn_graphs(); }
};
[[maybe_unused]] const ::testing::Environment* const kReleaseCudnnGraphs =
    ::testing::AddGlobalTestEnvironment(new ReleaseCudnnGraphs);

// Every split, variant and rank mode on `kernel` equals the reference within its bound. With cuDNN,
// each graph shape is built once in the process, by the first of its executors to need it.
void expect_every_split_variant_and_mode_correct(Kernel kernel) {
  std::set<std::string> shapes;
  int builds = 0;
  for (int c : {1, 2, 3, 4, 8})
    for (auto split : {Split::contiguous, Split::zigzag, Split::striped})
      for (const Variant variant : every_variant())
        for (auto mode : {CudaRankMode::isolated, CudaRankMode::concurrent}) {
          Config cfg = small_config(c, split, variant, c % 2 ? 64 : 128);
          cfg.kernel = kernel;
          SCOPED_TRACE(cfg.label() + " mode " + std::string(to_string(mode)));
          auto ex = make_cuda_executor(make_plan(cfg), CudaOptions{mode, CudaLaunch::graph, false, 0});
          const PassRecord rec = ex->run_pass(true);
          EXPECT_GT(rec.wall_ns, 0);
          const auto corr = check(*ex);
          ASSERT_TRUE(corr.passed()) << corr.over_tolerance << " over " << corr.tolerance << ", max err "
                                     << corr.max_abs_err;
          // One attention interval per rank and launched step (a causal contiguous ring skips the
          // blocks of later ranks: ring/plan/step_launch.hpp); with cuDNN a step's pieces and folds
          // share it.
          long launched = 0;
          for (int r = 0; r < c; ++r)
            for (const auto& sl : step_launches(ex->plan(), r)) launched += sl.action != StepAction::skip;
          const auto n_attn = std::count_if(rec.timeline.intervals.begin(), rec.timeline.intervals.end(),
                                            [](const Interval& iv) { return iv.name == "attention"; });
          EXPECT_EQ(n_attn, launched);
          EXPECT_FALSE(ex->graph_nodes().empty());
          const CudnnGraphsUsed graphs = ex->cudnn_graphs();
          EXPECT_EQ(graphs.shapes.empty(), kernel != Kernel::cudnn);
          for (const auto& [name, facts] : graphs.shapes) {
            EXPECT_EQ(facts.implementation, SdpaImplementation::composite) << name;
            EXPECT_FALSE(facts.plan.empty()) << name;
            shapes.insert(name);
          }
          builds += graphs.builds;
        }
  EXPECT_EQ(builds, static_cast<int>(shapes.size())) << "a shape built twice, or one never built";
}

// The captured pass replays to the eager pass's output, bit for bit.
void expect_graph_equals_eager(Kernel kernel) {
  Config cfg = small_config(4, Split::zigzag, Variant::ring, 128);
  cfg.kernel = kernel;
  auto graph = make_cuda_executor(make_plan(cfg), CudaOptions{});
  auto eager = make_cuda_executor(make_plan(cfg), CudaOptions{CudaRankMode::isolated, CudaLaunch::eager, false, 0});
  graph->run_pass(false);
  eager->run_pass(false);
  const auto rows = check_rows(graph->plan());
  EXPECT_EQ(graph->output_rows(rows.positions), eager->output_rows(rows.positions));
  EXPECT_TRUE(eager->graph_nodes().empty());
}

TEST(ExecutorCuda, EqualsReferenceForEverySplitVariantAndMode) {
  RB_SKIP_WITHOUT_GPU();
  expect_every_split_variant_and_mode_correct(Kernel::ringbench);
}

TEST(ExecutorCuda, GraphReplayEqualsEagerBitForBit) {
  RB_SKIP_WITHOUT_GPU();
  expect_graph_equals_eager(Kernel::ringbench);
}

// The cudnn kernel: each step as cuDNN SDPA pieces folded into the accumulators
// (ring/plan/sdpa_pieces.hpp), the same checks.
TEST(ExecutorCuda, CudnnKernelEqualsReferenceAndReplaysBitForBit) {
  RB_SKIP_WITHOUT_GPU();
#ifndef RINGBENCH_HAVE_CUDNN
  GTEST_SKIP() << "this build has no cuDNN kernel";
#else
  expect_every_split_variant_and_mode_correct(Kernel::cudnn);
  expect_graph_equals_eager(Kernel::cudnn);
#endif
}

TEST(ExecutorCuda, LinkModelPacesTransfers) {
  RB_SKIP_WITHOUT_GPU();
  Config cfg = small_config(2, Split::contiguous, Variant::ring, 64);
  cfg.link_gbps = 0.1;  // 0.1 Gbit/s: a block of 96 rows x 2 x 2 heads x 64 x 2 bytes takes ~3.9 ms
  auto ex = make_cuda_executor(make_plan(cfg), CudaOptions{CudaRankMode::concurrent, CudaLaunch::graph, true, 0});
  const auto rec = ex->run_pass(true);
  const std::int64_t bytes = ex->plan().ranks[0].steps[1].recv_bytes;
  const auto want_ns = static_cast<std::int64_t>(static_cast<double>(bytes) * 8 / 0.1);
  EXPECT_GE(rec.wall_ns, want_ns);
  for (const auto& iv : rec.timeline.intervals)
    if (iv.kind == IntervalKind::comm) {
      EXPECT_GE(iv.end_ns - iv.begin_ns, want_ns * 95 / 100) << iv.name;
    }
  EXPECT_TRUE(check(*ex).passed());
}

// Every transfer of the timed pass is seen twice: in flight (events) and executing (the copies'
// stamps), each execution window inside its span, one per copy, carrying the transfer's bytes.
TEST(ExecutorCuda, TransfersExecuteInsideTheirInFlightSpans) {
  RB_SKIP_WITHOUT_GPU();
  for (const Variant variant : every_variant())
    for (auto mode : {CudaRankMode::isolated, CudaRankMode::concurrent}) {
      const Config cfg = small_config(4, Split::zigzag, variant, 128);
      SCOPED_TRACE(cfg.label() + " mode " + std::string(to_string(mode)));
      auto ex = make_cuda_executor(make_plan(cfg), CudaOptions{mode, CudaLaunch::graph, false, 0});
      const auto rec = ex->run_pass(true);
      int spans = 0, copies = 0;
      for (const auto& f : rec.timeline.intervals) {
        if (f.kind != IntervalKind::comm_in_flight) continue;
        ++spans;
        std::int64_t bytes = 0;
        for (const auto& e : rec.timeline.intervals) {
          if (e.kind != IntervalKind::comm || e.rank != f.rank || e.step != f.step) continue;
          ++copies;
          bytes += e.bytes;
          EXPECT_GE(e.begin_ns, f.begin_ns);
          EXPECT_LE(e.end_ns, f.end_ns);
          EXPECT_LE(e.begin_ns, e.end_ns);
        }
        EXPECT_EQ(bytes, f.bytes) << "rank " << f.rank << " step " << f.step;
      }
      // One span per rank and step that moves; a copy per lane (rotating) or K and V from each of
      // the 3 others (gathered).
      const auto& sch = ex->plan().schedule;
      EXPECT_EQ(spans, sch.gathered ? 4 : 4 * 3);
      EXPECT_EQ(copies, sch.gathered ? 4 * 2 * 3 : 4 * 3 * static_cast<int>(sch.lanes.size()));
    }
}

TEST(ExecutorCuda, RejectsWhatTheKernelCannotRun) {
  RB_SKIP_WITHOUT_GPU();
  Config cfg = small_config(2, Split::contiguous, Variant::ring, 64);
  cfg.dtype = DType::float32;
  EXPECT_THROW(make_cuda_executor(make_plan(cfg), CudaOptions{}), InputError);
  cfg.dtype = DType::bfloat16;
  cfg.head_dim = 96;
  EXPECT_THROW(make_cuda_executor(make_plan(cfg), CudaOptions{}), InputError);
}

TEST(ExecutorCuda, AbortStopsLaterPasses) {
  RB_SKIP_WITHOUT_GPU();
  auto ex = make_cuda_executor(make_plan(small_config(2, Split::zigzag, Variant::ring, 64)), CudaOptions{});
  ex->abort();
  EXPECT_THROW(ex->run_pass(false), Error);
}

}  // namespace
}  // namespace rb::ring
