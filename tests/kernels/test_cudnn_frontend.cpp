// cuDNN through cudnn-frontend, without a GPU (label `unit`). In a build with cuDNN: the library opens
// at run time and reports its version (kernels/cudnn_library.hpp), and the frontend builds and
// validates one causal SDPA forward as the cudnn kernel will use it: bf16 Q, K, V in the buffers'
// (rows, H, D) layout ([1, H, S, D] with strides {S*H*D, D, H*D, 1}), GQA with Hkv < Hq, scale 1/sqrt(D),
// stats generated, at D = 64 and 128. validate() needs no device and no handle once the graph is
// given its SM version (set_sm_version; otherwise it asks the current device and fails without one);
// it does need libcudnn, for the version gates (cudnnGetVersion), so where the library does not open
// these tests report themselves skipped with the loader's reason. In a build without cuDNN, one test
// reports itself skipped with configure's reason. In both, `ringbench --version` lists cudnn exactly
// when the build has it.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#ifdef RINGBENCH_HAVE_CUDNN
#include <cudnn_frontend.h>

#include "kernels/cudnn_library.hpp"
#endif

namespace {

std::string version_text() {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(RINGBENCH_BINARY " --version", "r"), ::pclose);
  if (!p) return out;
  std::array<char, 256> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), p.get()) != nullptr) out += buf.data();
  return out;
}

#ifndef RINGBENCH_HAVE_CUDNN

TEST(CudnnFrontend, NotInThisBuild) {
  EXPECT_EQ(version_text().find(" cudnn"), std::string::npos) << version_text();
  GTEST_SKIP() << "built without cuDNN: " << RINGBENCH_CUDNN_OFF_REASON;
}

#else

namespace fe = cudnn_frontend;
namespace cudnn = rb::kernels::cudnn;

TEST(CudnnFrontend, VersionListsCudnn) {
  const std::string v = version_text();
  EXPECT_NE(v.find(" cudnn"), std::string::npos) << v;
}

TEST(CudnnFrontend, LibraryOpensAndReportsItsVersion) {
  EXPECT_FALSE(std::string(cudnn::header_version()).empty());
  EXPECT_FALSE(std::string(cudnn::frontend_version()).empty());
  EXPECT_EQ(cudnn::version_string(91400), "9.14.0");
  EXPECT_EQ(cudnn::version_string(91900), "9.19.0");
  const cudnn::Library& lib = cudnn::library();
  if (!lib.loaded) GTEST_SKIP() << lib.error;
  EXPECT_GE(lib.version, 90000u);
  EXPECT_FALSE(lib.path.empty());
  EXPECT_NE(fe::cudnn_dlhandle, nullptr);
  EXPECT_EQ(fe::detail::get_backend_version(), lib.version);  // the frontend asks the library that opened
  EXPECT_EQ(&cudnn::library(), &lib);                         // once per process
  // The frontend's CUDA runtime is this process's own (ringbench links the shared libcudart).
  const char* runtime = std::getenv("CUDNN_FRONTEND_CUDART_LIB_NAME");
  ASSERT_NE(runtime, nullptr);
  EXPECT_NE(std::string(runtime).find("libcudart.so"), std::string::npos) << runtime;
  std::printf("cuDNN %s at %s (headers %s, frontend %s)\n", cudnn::version_string(lib.version).c_str(),
              lib.path.c_str(), cudnn::header_version(), cudnn::frontend_version());
}

struct Shape {
  std::int64_t hq, hkv, s, d;
};

// One causal SDPA forward over the buffers' layout, validated for sm_90 (the H200) without a device.
fe::error_t validate_causal_sdpa(const Shape& x) {
  fe::graph::Graph g;
  g.set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  g.set_sm_version(90);
  auto rows = [&](const char* name, std::int64_t uid, std::int64_t h) {
    return g.tensor(fe::graph::Tensor_attributes()
                        .set_name(name)
                        .set_uid(uid)
                        .set_dim({1, h, x.s, x.d})
                        .set_stride({x.s * h * x.d, x.d, h * x.d, 1}));
  };
  auto q = rows("Q", 1, x.hq);
  auto k = rows("K", 2, x.hkv);
  auto v = rows("V", 3, x.hkv);
  auto options = fe::graph::SDPA_attributes()
                     .set_name("causal_sdpa")
                     .set_generate_stats(true)
                     .set_attn_scale(1.0f / std::sqrt(static_cast<float>(x.d)))
                     .set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
                     .set_diagonal_band_right_bound(0);
  auto [o, stats] = g.sdpa(q, k, v, options);
  o->set_output(true).set_uid(4).set_dim({1, x.hq, x.s, x.d}).set_stride({x.s * x.hq * x.d, x.d, x.hq * x.d, 1});
  stats->set_output(true).set_uid(5).set_data_type(fe::DataType_t::FLOAT);
  return g.validate();
}

TEST(CudnnFrontend, CausalGqaSdpaForwardValidatesWithoutADevice) {
  const cudnn::Library& lib = cudnn::library();
  if (!lib.loaded) GTEST_SKIP() << lib.error;
  for (std::int64_t d : {64, 128}) {
    fe::error_t st = validate_causal_sdpa({16, 2, 16384, d});  // get_message() is not const
    EXPECT_TRUE(st.is_good()) << "D = " << d << ": " << st.get_message();
  }
}

TEST(CudnnFrontend, ValidateRefusesWhatCudnnCannotRun) {
  const cudnn::Library& lib = cudnn::library();
  if (!lib.loaded) GTEST_SKIP() << lib.error;
  // Hq not a multiple of Hkv: validate() checks, so the passes above are the frontend's word.
  fe::error_t st = validate_causal_sdpa({16, 3, 4096, 128});
  EXPECT_FALSE(st.is_good());
}

#endif

}  // namespace
