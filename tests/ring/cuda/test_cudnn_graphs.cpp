// Every cuDNN SDPA graph the device check's profiles (profiles/gpu-check.json, and
// profiles/gpu-check-cudnn.json, which accept-cudnn runs) need with `--kernel cudnn` passes the
// frontend's validate() on the CPU, with the implementation ringbench chooses (composite:
// ring/cuda/cudnn_graph_cache.hpp): a graph cuDNN refuses is found here, not in the GPU's few
// minutes. The backward graphs of the same pieces and of more configurations are
// test_cudnn_backward_graphs.cpp's (issue 54). The library must open (kernels/cudnn_library.hpp);
// without it the test says so and skips. ctest runs it against this machine's cuDNN and again as
// ring.test_cudnn_graphs_914 (cudnn_test_library.hpp).
#include <gtest/gtest.h>

#include <set>

#include "ring/cuda/cudnn_sdpa.hpp"
#include "tests/ring/cuda/cudnn_test_library.hpp"

namespace rb::ring {
namespace {

using cudnn_test::check_library;

using cudnn_test::device_check_keys;

TEST(CudnnGraphs, EveryGraphOfTheDeviceCheckValidates) {
  ASSERT_NO_FATAL_FAILURE(check_library());
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) GTEST_SKIP() << lib.error;
  std::set<SdpaGraphKey> keys;
  ASSERT_NO_FATAL_FAILURE(device_check_keys(keys));
  for (const auto& k : keys) {
    EXPECT_EQ(sdpa_implementation(k), SdpaImplementation::composite) << graph_name(k);
    EXPECT_EQ(validate_sdpa_graph(k, 90), "") << graph_name(k);
  }
}

}  // namespace
}  // namespace rb::ring
