// The CUDA backend end to end: ring attention over c virtual ranks on one GPU equals the float64
// reference within the derived bf16 bound, for every case the backend runs (gpu_cases.hpp, held to
// the backend's rule on the CPU by test_gpu_cases.cpp), both rank modes, graph and eager launch; the
// graph's output equals the eager pass's bit for bit; the timeline holds every step; the link model
// slows transfers to the stated bandwidth.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "common/error.hpp"
#include "cuda_test_util.hpp"
#include "gpu_cases.hpp"
#include "ring/check/reference.hpp"
#include "ring/cuda/executor_cuda.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/step_launch.hpp"

namespace rb::ring {
namespace {

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

// Every case the cuda backend runs on `kernel` (gpu_cases.hpp: split x variant x phase x design x
// documents x c x rank mode x launch) equals the reference within its bound, and each eager pass
// equals its graph's bit for bit. With cuDNN, each graph shape is built once in the process, by the
// first of its executors to need it.
void expect_every_case_correct(Kernel kernel) {
  std::set<std::string> shapes;
  int builds = 0;
  const auto cases = test::gpu_cases(kernel);
  ASSERT_FALSE(cases.empty());
  std::vector<double> graph_out;  // the last graph case's output; its eager twin follows it
  for (const auto& gc : cases) {
    const Config& cfg = gc.cfg;
    SCOPED_TRACE(gc.name());
    auto ex = make_cuda_executor(make_plan(cfg), CudaOptions{gc.mode, gc.launch, false, 0});
    const PassRecord rec = ex->run_pass(true);
    EXPECT_GT(rec.wall_ns, 0);
    const auto corr = check(*ex);
    ASSERT_TRUE(corr.passed()) << corr.over_tolerance << " over " << corr.tolerance << ", max err " << corr.max_abs_err;
    const auto rows = check_rows(ex->plan());
    if (gc.launch == CudaLaunch::graph) {
      graph_out = ex->output_rows(rows.positions);
      EXPECT_FALSE(ex->graph_nodes().empty());
    } else {
      EXPECT_EQ(ex->output_rows(rows.positions), graph_out) << "eager differs from its graph";
      EXPECT_TRUE(ex->graph_nodes().empty());
    }
    // One attention interval per rank and launched step (a causal contiguous ring skips the
    // blocks of later ranks: ring/plan/step_launch.hpp); with cuDNN a step's pieces and folds
    // share it.
    long launched = 0;
    for (int r = 0; r < cfg.cp; ++r)
      for (const auto& sl : step_launches(ex->plan(), r)) launched += sl.action != StepAction::skip;
    const auto n_attn = std::count_if(rec.timeline.intervals.begin(), rec.timeline.intervals.end(),
                                      [](const Interval& iv) { return iv.name == "attention"; });
    EXPECT_EQ(n_attn, launched);
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

TEST(ExecutorCuda, EqualsReferenceAndEagerEqualsGraphForEveryCase) {
  RB_SKIP_WITHOUT_GPU();
  expect_every_case_correct(Kernel::ringbench);
}

// The cudnn kernel: each step as cuDNN SDPA pieces folded into the accumulators
// (ring/plan/sdpa_pieces.hpp), the same checks.
TEST(ExecutorCuda, CudnnKernelEqualsReferenceAndEagerEqualsGraphForEveryCase) {
  RB_SKIP_WITHOUT_GPU();
#ifndef RINGBENCH_HAVE_CUDNN
  GTEST_SKIP() << "this build has no cuDNN kernel";
#else
  expect_every_case_correct(Kernel::cudnn);
#endif
}

TEST(ExecutorCuda, LinkModelPacesTransfers) {
  RB_SKIP_WITHOUT_GPU();
  const Config cfg = test::link_model_config();
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
  const auto cases = test::transfer_span_cases();
  ASSERT_FALSE(cases.empty());
  for (const auto& gc : cases) {
    SCOPED_TRACE(gc.name());
    auto ex = make_cuda_executor(make_plan(gc.cfg), CudaOptions{gc.mode, gc.launch, false, 0});
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
  for (const Config& cfg : test::refused_configs())
    EXPECT_THROW(make_cuda_executor(make_plan(cfg), CudaOptions{}), InputError) << cfg.label();
}

TEST(ExecutorCuda, AbortStopsLaterPasses) {
  RB_SKIP_WITHOUT_GPU();
  auto ex = make_cuda_executor(make_plan(test::abort_config()), CudaOptions{});
  ex->abort();
  EXPECT_THROW(ex->run_pass(false), Error);
}

}  // namespace
}  // namespace rb::ring
