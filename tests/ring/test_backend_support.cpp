// The backend rule (which dtype and D each backend runs) and the CUDA backend's option names, both
// compiled in every build: what a CPU-only build refuses and records must read as on a GPU node.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "ring/backend_support.hpp"
#include "ring/cuda_options.hpp"

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
