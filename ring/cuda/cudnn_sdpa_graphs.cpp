// The cuDNN SDPA graphs of a piece shape and their host-side validation (cudnn_sdpa_graphs.hpp),
// and the versions of cuDNN this build and process use.
#include "ring/cuda/cudnn_sdpa_graphs.hpp"

#include <cmath>
#include <exception>
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

namespace {

// The backward graph of one piece shape (validated only: no executor builds it yet). Q, K, V, O, dO
// and the gradients as the forward's tensors, (rows, H, D) rows; Stats as `layout` names; dQ, dK, dV
// in `grads`. cuDNN recomputes Δ = rowsum(dO∘O) from the O it is given, so O is the final one.
// SDPA_backward_attributes has no implementation to choose.
std::shared_ptr<fe::graph::Graph> sdpa_backward_graph(const SdpaGraphKey& k, SdpaStatsLayout layout,
                                                      fe::DataType_t grads, int sm_version) {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  if (sm_version > 0) g->set_sm_version(sm_version);
  const std::int64_t hq = k.hq, hkv = k.hkv, d = k.d, rows = k.rows;
  auto rows_of = [d](fe::graph::Tensor_attributes& t, Uid uid, std::int64_t h, std::int64_t s) {
    t.set_uid(uid).set_dim({1, h, s, d}).set_stride({s * h * d, d, h * d, 1});
  };
  auto tensor = [&](const char* name, Uid uid, std::int64_t h, std::int64_t s) {
    auto t = g->tensor(fe::graph::Tensor_attributes().set_name(name));
    rows_of(*t, uid, h, s);
    return t;
  };
  auto q = tensor("Q", kQ, hq, rows);
  auto kk = tensor("K", kK, hkv, k.keys);
  auto v = tensor("V", kV, hkv, k.keys);
  auto o = tensor("O", kO, hq, rows);
  auto d_o = tensor("dO", kDO, hq, rows);
  auto stats = g->tensor(fe::graph::Tensor_attributes()
                             .set_name("Stats")
                             .set_uid(kStats)
                             .set_data_type(fe::DataType_t::FLOAT)
                             .set_dim({1, hq, rows, 1})
                             .set_stride(layout == SdpaStatsLayout::packed_bhsd
                                             ? std::vector<std::int64_t>{hq * rows, rows, 1, 1}
                                             : std::vector<std::int64_t>{rows * hq, 1, hq, 1}));
  auto options = fe::graph::SDPA_backward_attributes()
                     .set_name("ringbench_piece_bwd")
                     .set_attn_scale(static_cast<float>(1.0 / std::sqrt(static_cast<double>(k.d))));
  if (k.mask == SdpaMask::causal_top_left) options.set_causal_mask(true);
  auto [dq, dk, dv] = g->sdpa_backward(q, kk, v, o, d_o, stats, options);
  rows_of(dq->set_output(true).set_data_type(grads), kDQ, hq, rows);
  rows_of(dk->set_output(true).set_data_type(grads), kDK, hkv, k.keys);
  rows_of(dv->set_output(true).set_data_type(grads), kDV, hkv, k.keys);
  return g;
}

// Whether the validated graph `g` holds the tensors the frontend's backward node adds for its
// workaround padding mask (cuDNN <= 9.15, s_kv % 128 != 0; it logs "Workaround padding mask is
// enabled" only where CUDNN_FRONTEND_LOG_INFO was set before its first log): read from the graph's
// serialisation, which names every tensor of its nodes.
bool has_workaround_padding_mask(const fe::graph::Graph& g) {
  nlohmann::json j;
  g.serialize(j);
  for (const auto& t : j.at("tensors"))
    if (t.value("name", std::string()).starts_with("workaround_padding_mask")) return true;
  return false;
}

}  // namespace
}  // namespace cudnn_graphs

using namespace cudnn_graphs;

std::string validate_sdpa_graph(const SdpaGraphKey& key, int sm_version) {
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) return "cudnn: " + lib.error;
  auto st = sdpa_graph(key, sdpa_implementation(key), sm_version)->validate();
  return st.is_good() ? "" : st.get_message();
}

std::string validate_sdpa_backward_graph(const SdpaGraphKey& key, SdpaStatsLayout stats, DType gradients,
                                         int sm_version, bool* padding_workaround) {
  if (padding_workaround != nullptr) *padding_workaround = false;
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) return "cudnn: " + lib.error;
  if (gradients != DType::bfloat16 && gradients != DType::float32) return "cudnn: gradients are bfloat16 or float32";
  const auto grads = gradients == DType::float32 ? fe::DataType_t::FLOAT : fe::DataType_t::BFLOAT16;
  auto g = sdpa_backward_graph(key, stats, grads, sm_version);
  auto st = g->validate();
  if (!st.is_good()) return st.get_message();
  if (padding_workaround != nullptr) {
    try {
      *padding_workaround = has_workaround_padding_mask(*g);
    } catch (const std::exception& e) {
      return std::string("cudnn: the validated backward graph does not serialise: ") + e.what();
    }
  }
  return "";
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
std::string validate_sdpa_backward_graph(const SdpaGraphKey&, SdpaStatsLayout, DType, int, bool* padding_workaround) {
  if (padding_workaround != nullptr) *padding_workaround = false;
  return "this build has no cuDNN kernel";
}
std::map<std::string, std::string> cudnn_versions() { return {}; }

#endif

}  // namespace rb::ring
