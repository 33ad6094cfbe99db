// Every cuDNN SDPA graph the device check's profiles (profiles/gpu-check.json, and
// profiles/gpu-check-cudnn.json, which accept-cudnn runs) need with `--kernel cudnn` passes the
// frontend's validate() on the CPU, with the implementation ringbench chooses (composite:
// ring/cuda/cudnn_graph_cache.hpp): a graph cuDNN refuses is found here, not in the GPU's few
// minutes. The library must open (kernels/cudnn_library.hpp); without it the test says so and skips.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "kernels/cudnn_library.hpp"
#include "ring/cuda/cudnn_sdpa.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/sdpa_pieces.hpp"

namespace rb::ring {
namespace {

TEST(CudnnGraphs, EveryGraphOfTheDeviceCheckValidates) {
  const auto& lib = kernels::cudnn::library();
  if (!lib.loaded) GTEST_SKIP() << lib.error;
  std::set<SdpaGraphKey> keys;
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
            cfg.dtype = DType::bfloat16;
            cfg.backend = Backend::cuda;
            cfg.kernel = Kernel::cudnn;
            const Plan plan = make_plan(cfg);
            ASSERT_EQ(sdpa_refusal(plan), "") << cfg.label();
            for (int r = 0; r < cp; ++r)
              for (const auto& st : sdpa_steps(plan, r))
                for (const auto& piece : st.pieces) keys.insert(graph_key(piece, cfg));
            ++configs;
          }
    EXPECT_EQ(configs, expected) << name;
  }
  EXPECT_GT(keys.size(), 4u);
  for (const auto& k : keys) {
    EXPECT_EQ(sdpa_implementation(k), SdpaImplementation::composite) << graph_name(k);
    EXPECT_EQ(validate_sdpa_graph(k, 90), "") << graph_name(k);
  }
}

}  // namespace
}  // namespace rb::ring
