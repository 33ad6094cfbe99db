// What the cuDNN graph tests (test_cudnn_graphs.cpp, test_cudnn_backward_graphs.cpp) share: the
// library each run must see, and the pieces a configuration's forward cuts its steps into.
// ctest runs them twice: against this machine's cuDNN, and as ring.test_cudnn_graphs_914 through a
// shim that reports 9.14.0, the GPU node's (tests/ring/CMakeLists.txt); RINGBENCH_EXPECT_CUDNN_VERSION
// then names the version the library and the frontend must see, so that run cannot skip, or pass
// at this machine's version, unnoticed.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "kernels/cudnn_library.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/sdpa_pieces.hpp"

// The frontend's handle to cuDNN (defined in kernels/cudnn_library.cpp). Declared here rather than
// through <cudnn_frontend.h>, whose templates cost a test file 40 s of compiling.
namespace cudnn_frontend {
extern void* cudnn_dlhandle;
}  // namespace cudnn_frontend

namespace rb::ring::cudnn_test {

// What the frontend's version gates read: cudnn_frontend::detail::get_backend_version() calls the
// cudnnGetVersion that dlsym finds on this handle (cudnn_frontend_shim.h, get_symbol).
inline std::size_t frontend_backend_version() {
  using GetVersion = std::size_t (*)();
  auto* f = reinterpret_cast<GetVersion>(::dlsym(cudnn_frontend::cudnn_dlhandle, "cudnnGetVersion"));
  return f != nullptr ? f() : 0;
}

// The library this run must see (RINGBENCH_EXPECT_CUDNN_VERSION, where set), and the one the
// frontend's gates read. The caller skips where it did not open.
inline void check_library() {
  const auto& lib = kernels::cudnn::library();
  if (const char* want = std::getenv("RINGBENCH_EXPECT_CUDNN_VERSION"); want != nullptr && want[0] != '\0') {
    ASSERT_TRUE(lib.loaded) << lib.error;
    ASSERT_EQ(lib.version, std::strtoull(want, nullptr, 10)) << lib.path;
  }
  if (lib.loaded) {
    ASSERT_EQ(frontend_backend_version(), lib.version) << lib.path;
  }
}

// Every piece shape of `cfg` on the cudnn kernel, each rank's steps (sdpa_steps), into `keys`; the
// configuration must be one the cudnn kernel takes (sdpa_refusal).
inline void add_piece_keys(Config cfg, std::set<SdpaGraphKey>& keys) {
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  cfg.kernel = Kernel::cudnn;
  const Plan plan = make_plan(cfg);
  ASSERT_EQ(sdpa_refusal(plan), "") << cfg.label();
  for (int r = 0; r < cfg.cp; ++r)
    for (const auto& st : sdpa_steps(plan, r))
      for (const auto& piece : st.pieces) keys.insert(graph_key(piece, cfg));
}

// Every cuDNN piece shape of the device check's profiles (profiles/gpu-check.json and
// gpu-check-cudnn.json): the forward's, and the backward's, whose pieces are the forward's.
inline void device_check_keys(std::set<SdpaGraphKey>& keys) {
  const std::pair<const char*, int> profiles[] = {{"gpu-check.json", 2 * 4 * 3 * 2},
                                                  {"gpu-check-cudnn.json", 4 * 3 * 2}};
  for (const auto& [name, expected] : profiles) {
    const auto profile = nlohmann::json::parse(std::ifstream(std::string(RINGBENCH_SOURCE_DIR) + "/profiles/" + name));
    const auto& sw = profile.at("sweep");
    int configs = 0;
    for (std::int64_t seq : sw.at("seq"))
      for (int cp : sw.at("cp"))
        for (const std::string split : sw.at("split"))
          for (const std::string variant : sw.at("variant")) {
            Config cfg;
            cfg.seq = seq;
            cfg.cp = cp;
            cfg.split = parse_split(split, "split");
            cfg.variant = parse_variant(variant, "variant");
            cfg.heads = sw.at("heads");
            cfg.kv_heads = sw.at("kv_heads");
            cfg.head_dim = sw.at("head_dim");
            cfg.causal = sw.at("causal");
            ASSERT_NO_FATAL_FAILURE(cudnn_test::add_piece_keys(cfg, keys));
            ++configs;
          }
    EXPECT_EQ(configs, expected) << name;
  }
  EXPECT_GT(keys.size(), 4u);
}

}  // namespace rb::ring::cudnn_test
