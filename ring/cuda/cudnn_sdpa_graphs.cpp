// The cuDNN SDPA forward graph of a piece shape and its host-side validation (cudnn_sdpa_graphs.hpp),
// and the versions of cuDNN this build and process use.
#include "ring/cuda/cudnn_sdpa_graphs.hpp"

#include <cmath>
#include <string>

#include "ring/cuda/cudnn_sdpa.hpp"

#ifdef RINGBENCH_HAVE_CUDNN
#include "kernels/cudnn_library.hpp"
#endif

namespace rb::ring {

#ifdef RINGBENCH_HAVE_CUDNN
namespace cudnn_graphs {
namespace {

fe::AttentionImplementation_t frontend_implementation(SdpaImplementation v) {
  return v == SdpaImplementation::composite ? fe::AttentionImplementation_t::COMPOSITE
                                            : fe::AttentionImplementation_t::UNIFIED;
}

}  // namespace

// The graph of one piece shape over the buffers' (rows, H, D) layout: logical dims [1, H, S, D] with
// strides {S·H·D, D, H·D, 1}, so a row offset is a pointer offset; the stats [1, Hq, S, 1] with
// strides {S·Hq, 1, Hq, 1} land in the (rows, Hq) layout the merge reads. The implementation is
// chosen, not left to AUTO (cudnn_graph_cache.hpp, sdpa_implementation).
// `sm_version` > 0 validates for that GPU generation without a device (90: Hopper).
std::shared_ptr<fe::graph::Graph> sdpa_graph(const SdpaGraphKey& k, SdpaImplementation impl, int sm_version) {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  if (sm_version > 0) g->set_sm_version(sm_version);
  const std::int64_t hq = k.hq, hkv = k.hkv, d = k.d;
  auto tensor = [&](const char* name, Uid uid, std::int64_t h, std::int64_t s) {
    return g->tensor(fe::graph::Tensor_attributes()
                         .set_name(name)
                         .set_uid(uid)
                         .set_dim({1, h, s, d})
                         .set_stride({s * h * d, d, h * d, 1}));
  };
  auto q = tensor("Q", kQ, hq, k.rows);
  auto kk = tensor("K", kK, hkv, k.keys);
  auto v = tensor("V", kV, hkv, k.keys);
  auto options = fe::graph::SDPA_attributes()
                     .set_name("ringbench_piece")
                     .set_implementation(frontend_implementation(impl))
                     .set_generate_stats(true)
                     .set_attn_scale(static_cast<float>(1.0 / std::sqrt(static_cast<double>(k.d))));
  if (k.mask == SdpaMask::causal_top_left) options.set_causal_mask(true);
  auto [o, stats] = g->sdpa(q, kk, v, options);
  o->set_output(true).set_uid(kO).set_dim({1, hq, k.rows, d}).set_stride({k.rows * hq * d, d, hq * d, 1});
  stats->set_output(true)
      .set_uid(kStats)
      .set_data_type(fe::DataType_t::FLOAT)
      .set_dim({1, hq, k.rows, 1})
      .set_stride({k.rows * hq, 1, hq, 1});
  return g;
}

}  // namespace cudnn_graphs

using namespace cudnn_graphs;

std::string validate_sdpa_graph(const SdpaGraphKey& key, int sm_version) {
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) return "cudnn: " + lib.error;
  auto st = sdpa_graph(key, sdpa_implementation(key), sm_version)->validate();
  return st.is_good() ? "" : st.get_message();
}

std::map<std::string, std::string> cudnn_versions() {
  // The library is opened at run time; a machine without it still records what it was built with.
  const auto& lib = kernels::cudnn::library();
  std::map<std::string, std::string> v{{"headers", kernels::cudnn::header_version()},
                                       {"frontend", kernels::cudnn::frontend_version()}};
  v["library"] = lib.loaded ? kernels::cudnn::version_string(lib.version) : "unavailable: " + lib.error;
  if (lib.loaded) v["path"] = lib.path;
  return v;
}

#else  // no cuDNN in this build

std::string validate_sdpa_graph(const SdpaGraphKey&, int) { return "this build has no cuDNN kernel"; }
std::map<std::string, std::string> cudnn_versions() { return {}; }

#endif

}  // namespace rb::ring
