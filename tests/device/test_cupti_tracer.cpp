// The CUPTI tracer on a real device (label `gpu`): a kernel, a memcpy and a memset on a stream
// whose role is stated come back as intervals on CUPTI's clock inside the traced window, nothing
// dropped, and an NVTX range in the `ringbench` domain comes back as a marker interval. As the
// binary does (bench/cli/main.cpp), libcupti is named NVTX's tool before any NVTX call, here before
// the first test (gtest_discover_tests runs each test in a process of its own); where it cannot be
// named (no NVTX, libcupti 13.0.0, another tool named) the tests of NVTX markers skip with the
// reason. Skips cleanly where no device is present.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>

#include "bench/measure/cupti_nvtx_tool.hpp"
#include "bench/measure/cupti_tracer.hpp"
#include "common/nvtx.hpp"
#include "ring/cuda/executor_cuda.hpp"
#include "ring/plan/plan.hpp"

cudaError_t launch_add_one(float* x, int n, cudaStream_t stream);

namespace rb::bench {
namespace {

bool have_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// Whether libcupti became NVTX's tool, decided once, before any test (and so any NVTX call) runs.
NvtxTool& nvtx_tool() {
  static NvtxTool tool;
  return tool;
}

class NameCuptiAsNvtxTool : public ::testing::Environment {
 public:
  void SetUp() override { nvtx_tool() = name_cupti_as_nvtx_tool(); }
};
[[maybe_unused]] const ::testing::Environment* const kNvtxTool =
    ::testing::AddGlobalTestEnvironment(new NameCuptiAsNvtxTool);

TEST(CuptiTracer, TracesKernelMemcpyAndMemset) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  cudaStream_t stream{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  constexpr int n = 1 << 20;
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
  std::vector<float> host(n, 1.0f);

  CuptiConversionOptions opt;
  opt.marker_domain = nvtx::kDomain;
  CuptiTracer tracer(opt);
  tracer.set_stream_role(stream, 0, {0, IntervalKind::compute, "rank 0 compute"});
  const std::int64_t t0 = CuptiTracer::now_ns();
  {
    nvtx::ScopedRange range(nvtx::kRangeReplay, 0);
    ASSERT_EQ(cudaMemsetAsync(d, 0, n * sizeof(float), stream), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream), cudaSuccess);
    ASSERT_EQ(launch_add_one(d, n, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
  const std::int64_t t1 = CuptiTracer::now_ns();
  const Timeline t = tracer.take(t0, t1);
  EXPECT_EQ(tracer.dropped_records(), 0u);

  auto find = [&](auto pred) { return std::find_if(t.intervals.begin(), t.intervals.end(), pred); };
  const auto k = find([](const Interval& i) { return i.name.find("add_one") != std::string::npos; });
  ASSERT_NE(k, t.intervals.end());
  EXPECT_EQ(k->lane, "rank 0 compute");
  EXPECT_EQ(k->kind, IntervalKind::compute);
  const auto c = find([](const Interval& i) { return i.name == "Memcpy HtoD"; });
  ASSERT_NE(c, t.intervals.end());
  EXPECT_EQ(c->bytes, static_cast<std::int64_t>(n * sizeof(float)));
  const auto s = find([](const Interval& i) { return i.name == "Memset"; });
  ASSERT_NE(s, t.intervals.end());
  for (const auto& i : t.intervals) {
    if (i.kind == IntervalKind::other) continue;
    EXPECT_GE(i.begin_ns, t0) << i.name;
    EXPECT_LE(i.end_ns, t1) << i.name;
    EXPECT_LE(i.begin_ns, i.end_ns) << i.name;
  }
  // Memset, then copy, then kernel: one stream runs them in order.
  EXPECT_LE(s->end_ns, c->begin_ns);
  EXPECT_LE(c->end_ns, k->begin_ns);
  cudaFree(d);
  cudaStreamDestroy(stream);
  // Last, so that the activity above is checked whether or not NVTX reaches CUPTI.
  if (!nvtx_tool().named)
    GTEST_SKIP() << "the replay marker is not checked: libcupti is not NVTX's tool: " << nvtx_tool().why;
  const auto m = find([](const Interval& i) { return i.lane == "nvtx ringbench" && i.name == "replay"; });
  ASSERT_NE(m, t.intervals.end()) << "no NVTX marker recorded though NVTX_INJECTION64_PATH names libcupti";
  EXPECT_LE(m->begin_ns, k->begin_ns);
}

// What a user finds in Nsight Systems around the CUDA executor: a capture range per graph, a
// "rank pass" range around each rank's graph launch in isolated mode (steps inside a replayed
// graph cannot carry host ranges), and a "step" range around each step's launches when eager.
TEST(CuptiTracer, ExecutorRangesNameEveryRankPassAndEagerStep) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  if (!nvtx_tool().named) GTEST_SKIP() << "libcupti is not NVTX's tool: " << nvtx_tool().why;
  Config cfg;
  cfg.seq = 3 * 2 * 64;
  cfg.cp = 3;
  cfg.split = Split::zigzag;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = 64;
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  CuptiConversionOptions opt;
  opt.marker_domain = nvtx::kDomain;
  CuptiTracer tracer(opt);
  const std::int64_t t0 = CuptiTracer::now_ns();
  auto graph = ring::make_cuda_executor(ring::make_plan(cfg), ring::CudaOptions{});
  (void)graph->run_pass(false);
  auto eager = ring::make_cuda_executor(ring::make_plan(cfg), ring::CudaOptions{ring::CudaRankMode::isolated,
                                                                                ring::CudaLaunch::eager, false, 0});
  (void)eager->run_pass(false);
  const Timeline t = tracer.take(t0, CuptiTracer::now_ns());
  auto count = [&](const char* name) {
    return std::count_if(t.intervals.begin(), t.intervals.end(),
                         [&](const Interval& i) { return i.lane == "nvtx ringbench" && i.name == name; });
  };
  EXPECT_EQ(count(nvtx::kRangeCapture), 3);  // one graph per rank in isolated mode
  // Graph executor: its eager first pass, the untimed replay, one timed replay; eager executor: its
  // first pass and one timed pass. Each is one range per rank.
  EXPECT_EQ(count(nvtx::kRangeRankPass), 3 * 5);
  // Only the eager passes carry steps: the graph executor's first pass and the eager executor's two,
  // each with 3 ranks of 3 steps (the isolated mode runs the ranks one after another).
  EXPECT_EQ(count(nvtx::kRangeStep), 3 * 3 * 3);
}

}  // namespace
}  // namespace rb::bench
