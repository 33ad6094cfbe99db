// The backend rule (which dtype and D each backend runs) and the CUDA backend's option names, both
// compiled in every build: what a CPU-only build refuses and records must read as on a GPU node.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/documents.hpp"
#include "common/error.hpp"
#include "ring/cuda/cuda_options.hpp"
#include "ring/executor/backend_support.hpp"
#ifdef RINGBENCH_HAVE_CUDA
#include "ring/cuda/executor_cuda.hpp"
#endif

namespace rb::ring {
namespace {

Config shape(Backend backend, DType dtype, int head_dim) {
  Config cfg;
  cfg.backend = backend;
  cfg.dtype = dtype;
  cfg.head_dim = head_dim;
  return cfg;
}

// The rule each refusal names, or "" when the backend runs the shape.
std::string refusal(const Config& cfg) {
  try {
    check_backend_supports(cfg);
    return "";
  } catch (const InputError& e) {
    return e.where() + ": " + e.rule();
  }
}

// Nothing falls back to another kernel or backend: a backward on cuda is refused naming the phase.
TEST(BackendSupport, TheBackwardRunsOnTheCpuBackendOnly) {
  for (const Phase phase : {Phase::bwd, Phase::fwd_bwd}) {
    Config cuda = shape(Backend::cuda, DType::bfloat16, 128);
    cuda.phase = phase;
    EXPECT_EQ(refusal(cuda).rfind("phase: the cuda backend runs the forward only", 0), 0u) << refusal(cuda);
    for (const Kernel k : {Kernel::ringbench, Kernel::cudnn}) {
      cuda.kernel = k;
      EXPECT_NE(refusal(cuda), "");
    }
    Config cpu = shape(Backend::cpu, DType::float32, 64);
    cpu.phase = phase;
    EXPECT_EQ(refusal(cpu), "");
  }
}

// The all-to-alls of a head exchange have no CUDA side yet: ulysses and hybrid are refused on cuda
// naming the variant, and run on the cpu backend.
TEST(BackendSupport, TheHeadExchangeRunsOnTheCpuBackendOnly) {
  for (const Variant v : {Variant::ulysses, Variant::hybrid}) {
    Config cuda = shape(Backend::cuda, DType::bfloat16, 128);
    cuda.variant = v;
    EXPECT_EQ(refusal(cuda).rfind("variant: the cuda backend runs the ring variants only", 0), 0u) << refusal(cuda);
    Config cpu = shape(Backend::cpu, DType::float32, 64);
    cpu.variant = v;
    EXPECT_EQ(refusal(cpu), "");
  }
  for (const Variant v : {Variant::ring, Variant::allgather, Variant::ring_bidirectional}) {
    Config cuda = shape(Backend::cuda, DType::bfloat16, 128);
    cuda.variant = v;
    EXPECT_EQ(refusal(cuda), "");
  }
}

// Packed documents run on the cpu backend; the cuda backend refuses them in one line, with either kernel.
TEST(BackendSupport, DocumentsRunOnTheCpuBackendOnly) {
  Config cuda = shape(Backend::cuda, DType::bfloat16, 128);
  cuda.seq = 1024;
  set_documents(cuda, parse_document_spec("512+512", "--documents"), false);
  for (const Kernel k : {Kernel::ringbench, Kernel::cudnn}) {
    cuda.kernel = k;
    EXPECT_EQ(refusal(cuda).rfind("documents: the cuda backend runs one causal sequence", 0), 0u) << refusal(cuda);
  }
  Config cpu = shape(Backend::cpu, DType::float32, 64);
  cpu.seq = 1024;
  set_documents(cpu, parse_document_spec("512+512", "--documents"), false);
  EXPECT_EQ(refusal(cpu), "");
}

TEST(BackendSupport, CudaRunsBfloat16WithD64Or128) {
  EXPECT_EQ(refusal(shape(Backend::cuda, DType::bfloat16, 64)), "");
  EXPECT_EQ(refusal(shape(Backend::cuda, DType::bfloat16, 128)), "");
  EXPECT_EQ(refusal(shape(Backend::cuda, DType::float32, 128)), "dtype: the cuda backend runs bfloat16");
  EXPECT_EQ(refusal(shape(Backend::cuda, DType::bfloat16, 96)),
            "head-dim: the cuda attention kernel supports D = 64 and 128");
}

TEST(BackendSupport, CpuRunsFloat64AndFloat32AtAnyD) {
  EXPECT_EQ(refusal(shape(Backend::cpu, DType::float64, 8)), "");
  EXPECT_EQ(refusal(shape(Backend::cpu, DType::float32, 96)), "");
  EXPECT_EQ(refusal(shape(Backend::cpu, DType::bfloat16, 64)),
            "dtype: the cpu backend runs float64 or float32; bfloat16 needs the cuda backend");
}

#ifdef RINGBENCH_HAVE_CUDA
// make_cuda_executor checks the rule for its direct callers (the device tests, the micro-benchmark)
// before it touches a device, whatever backend the config names; so a refusal needs no GPU. The
// sweep checks once, in bench/sweep/backend.cpp, and makes its executor unchecked.
TEST(BackendSupport, TheCheckingCudaFactoryRefusesBeforeItTouchesADevice) {
  struct Case {
    Config cfg;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {shape(Backend::cuda, DType::float32, 64), "dtype: the cuda backend runs bfloat16"},
      {shape(Backend::cpu, DType::float64, 64), "dtype: the cuda backend runs bfloat16"},
      {shape(Backend::cpu, DType::bfloat16, 96), "head-dim: the cuda attention kernel supports D = 64 and 128"},
  };
  for (const Case& c : cases) {
    Config cfg = c.cfg;
    cfg.cp = 2;
    cfg.seq = 256;
    SCOPED_TRACE(cfg.label());
    try {
      (void)make_cuda_executor(make_plan(cfg), CudaOptions{});
      FAIL() << "no refusal";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where() + ": " + e.rule(), c.expected);
    }
  }
}
#endif

TEST(CudaOptions, NamesRoundTrip) {
  for (auto m : {CudaRankMode::isolated, CudaRankMode::concurrent})
    EXPECT_EQ(parse_cuda_rank_mode(to_string(m), "--rank-mode"), m);
  for (auto l : {CudaLaunch::graph, CudaLaunch::eager}) EXPECT_EQ(parse_cuda_launch(to_string(l), "--launch"), l);
  EXPECT_EQ(to_string(CudaRankMode::isolated), "isolated");
  EXPECT_EQ(to_string(CudaLaunch::graph), "graph");
}

TEST(CudaOptions, UnknownNameNamesTheFlag) {
  try {
    (void)parse_cuda_launch("lazy", "--launch");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--launch");
    EXPECT_EQ(e.value(), "'lazy'");
  }
  EXPECT_THROW((void)parse_cuda_rank_mode("sideways", "--rank-mode"), InputError);
}

}  // namespace
}  // namespace rb::ring
