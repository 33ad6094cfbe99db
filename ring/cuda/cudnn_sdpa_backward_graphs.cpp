// The cuDNN SDPA backward graph of one piece (cudnn_sdpa_backward_graphs.hpp) and what the host asks
// of it without a device (cudnn_sdpa_backward.hpp): the key's refusals, validate(), the workspace.
#include "ring/cuda/cudnn_sdpa_backward.hpp"

#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"

#ifdef RINGBENCH_HAVE_CUDNN
#include "kernels/cudnn_library.hpp"
#include "ring/cuda/cudnn_sdpa_backward_graphs.hpp"
#endif

namespace rb::ring {

SdpaBackwardGraphKey backward_graph_key(const SdpaGraphKey& f) {
  return {.rows = f.rows, .keys = f.keys, .mask = f.mask, .hq = f.hq, .hkv = f.hkv, .d = f.d};
}

std::string backward_graph_name(const SdpaBackwardGraphKey& k) {
  const SdpaGraphKey forward{.rows = k.rows, .keys = k.keys, .mask = k.mask, .hq = k.hq, .hkv = k.hkv, .d = k.d};
  return fmt::format("{} stats={} grads={}{}", graph_name(forward),
                     k.stats == SdpaStatsLayout::packed_bhsd ? "packed" : "forward-rows",
                     k.gradients == DType::float32    ? "fp32"
                     : k.gradients == DType::bfloat16 ? "bf16"
                                                      : "fp64",
                     k.deterministic ? " deterministic" : "");
}

void check_backward_graph_key(const SdpaBackwardGraphKey& k) {
  auto refuse = [&](const std::string& rule) {
    throw InputError("cudnn backward graph", backward_graph_name(k), rule);
  };
  if (k.rows < 1 || k.keys < 1) refuse("a piece has at least one row and one key");
  if (k.rows == 1 && k.keys == 1)
    refuse("cuDNN's SDPA backward refuses a 1x1 piece (s_q = s_kv = 1); it needs another kernel");
  if (k.mask == SdpaMask::causal_top_left && k.rows != k.keys) refuse("a causal piece is square (rows == keys)");
  if (k.hkv < 1 || k.hq < k.hkv || k.hq % k.hkv != 0) refuse("Hq is a positive multiple of Hkv");
  if (k.d < 8 || k.d > 256 || k.d % 8 != 0) refuse("D is a multiple of 8 from 8 to 256");
  if (k.gradients != DType::bfloat16 && k.gradients != DType::float32) refuse("the gradients are bfloat16 or float32");
}

std::int64_t sdpa_backward_dp_bytes(const SdpaBackwardGraphKey& k) {
  if (!k.deterministic) return 0;
  const std::int64_t rows = (k.rows + 63) / 64 * 64, keys = (k.keys + 127) / 128 * 128;
  return static_cast<std::int64_t>(k.hq) * rows * keys * 2;
}

#ifdef RINGBENCH_HAVE_CUDNN
namespace cudnn_graphs {

// The (rows, H, D) rows of the buffers as the forward's graph lays them out: logical [1, H, S, D],
// strides {S·H·D, D, H·D, 1}, so a piece's row offset is a pointer offset.
std::shared_ptr<fe::graph::Graph> sdpa_backward_graph(const SdpaBackwardGraphKey& k, int sm_version) {
  check_backward_graph_key(k);
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
                             .set_stride(k.stats == SdpaStatsLayout::packed_bhsd
                                             ? std::vector<std::int64_t>{hq * rows, rows, 1, 1}
                                             : std::vector<std::int64_t>{rows * hq, 1, hq, 1}));
  // SDPA_backward_attributes has no implementation to choose (the forward's composite/unified).
  auto options = fe::graph::SDPA_backward_attributes()
                     .set_name("ringbench_piece_bwd")
                     .set_attn_scale(static_cast<float>(1.0 / std::sqrt(static_cast<double>(k.d))))
                     .set_deterministic_algorithm(k.deterministic);
  if (k.mask == SdpaMask::causal_top_left) options.set_causal_mask(true);
  auto [dq, dk, dv] = g->sdpa_backward(q, kk, v, o, d_o, stats, options);
  const auto grads = k.gradients == DType::float32 ? fe::DataType_t::FLOAT : fe::DataType_t::BFLOAT16;
  rows_of(dq->set_output(true).set_data_type(grads), kDQ, hq, rows);
  rows_of(dk->set_output(true).set_data_type(grads), kDK, hkv, k.keys);
  rows_of(dv->set_output(true).set_data_type(grads), kDV, hkv, k.keys);
  return g;
}

}  // namespace cudnn_graphs

namespace {

using BackwardGraph = cudnn_graphs::fe::graph::Graph;

// Whether the validated graph holds the tensors the frontend's backward node adds for its workaround
// padding mask (cuDNN <= 9.15, s_kv % 128 != 0; it logs "Workaround padding mask is enabled" only
// where CUDNN_FRONTEND_LOG_INFO was set before its first log).
bool backward_padding_workaround(const BackwardGraph& g) {
  nlohmann::json j;
  g.serialize(j);  // every tensor of the graph's nodes, by name
  for (const auto& t : j.at("tensors"))
    if (t.value("name", std::string()).starts_with("workaround_padding_mask")) return true;
  return false;
}

void require_library() {
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) throw Error("cudnn: " + lib.error);
}

}  // namespace

std::string validate_sdpa_backward_graph(const SdpaBackwardGraphKey& key, int sm_version, bool* padding_workaround) {
  if (padding_workaround != nullptr) *padding_workaround = false;
  check_backward_graph_key(key);
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) return "cudnn: " + lib.error;
  auto g = cudnn_graphs::sdpa_backward_graph(key, sm_version);
  if (auto st = g->validate(); !st.is_good()) return st.get_message();
  if (padding_workaround != nullptr) {
    try {
      *padding_workaround = backward_padding_workaround(*g);
    } catch (const std::exception& e) {
      return std::string("cudnn: the validated backward graph does not serialise: ") + e.what();
    }
  }
  return "";
}

// The frontend reserves its own tensors at the start of the workspace, ahead of the engine's part
// (graph_interface.h, execute: the engine's workspace starts fe_workspace_size bytes in), sized by
// the nodes it expanded (get_fe_workspace_size_node). build_operation_graph fixes that size before it
// lowers the operation graph, and lowers it without a handle (it did at 9.14 and 9.19 for SM 90 on a
// machine without a GPU); get_autotune_workspace_size() is that size plus the largest built plan's,
// and no plan is built here (that needs a device), so it is the frontend's part alone.
SdpaBackwardWorkspace sdpa_backward_workspace(const SdpaBackwardGraphKey& key, int sm_version) {
  check_backward_graph_key(key);
  require_library();
  const std::string name = backward_graph_name(key);
  auto g = cudnn_graphs::sdpa_backward_graph(key, sm_version);
  if (auto st = g->validate(); !st.is_good()) throw Error("cudnn: " + name + ": " + st.get_message());
  if (auto st = g->build_operation_graph(static_cast<cudnnHandle_t>(nullptr)); !st.is_good())
    throw Error("cudnn: " + name + ": lowering without a device: " + st.get_message());
  if (g->get_execution_plan_count() != 0) throw Error("cudnn: " + name + ": a plan was built without a device");
  return {.frontend = g->get_autotune_workspace_size(), .dp = sdpa_backward_dp_bytes(key)};
}

#else  // no cuDNN in this build

std::string validate_sdpa_backward_graph(const SdpaBackwardGraphKey& key, int, bool* padding_workaround) {
  if (padding_workaround != nullptr) *padding_workaround = false;
  check_backward_graph_key(key);
  return "this build has no cuDNN kernel";
}
SdpaBackwardWorkspace sdpa_backward_workspace(const SdpaBackwardGraphKey& key, int) {
  check_backward_graph_key(key);
  throw Error("this build has no cuDNN kernel");
}

#endif

}  // namespace rb::ring
