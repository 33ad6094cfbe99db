// cuDNN SDPA graphs for the cudnn kernel (see cudnn_sdpa.hpp).
#include "ring/cuda/cudnn_sdpa.hpp"

#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "ring/cuda/cuda_devices.hpp"

#ifdef RINGBENCH_HAVE_CUDNN
#include "kernels/cudnn_library.hpp"
#include "ring/cuda/cudnn_check.hpp"
#endif

namespace rb::ring {

#ifdef RINGBENCH_HAVE_CUDNN
namespace fe = cudnn_frontend;

namespace {

enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats };

std::string key_name(const SdpaGraphKey& k) {
  return fmt::format("{}x{}{} Hq={} Hkv={} D={}", k.rows, k.keys, k.mask == SdpaMask::causal_top_left ? " causal" : "",
                     k.hq, k.hkv, k.d);
}

// The graph of one piece shape over the buffers' (rows, H, D) layout: logical dims [1, H, S, D] with
// strides {S·H·D, D, H·D, 1}, so a row offset is a pointer offset; the stats [1, Hq, S, 1] with
// strides {S·Hq, 1, Hq, 1} land in the (rows, Hq) layout the merge reads.
// `sm_version` > 0 validates for that GPU generation without a device (90: Hopper).
std::shared_ptr<fe::graph::Graph> sdpa_graph(const SdpaGraphKey& k, int sm_version = 0) {
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

}  // namespace

struct CudnnSdpa::Impl {
  int device = 0;
  cudnnHandle_t handle = nullptr;
  struct Built {
    std::shared_ptr<fe::graph::Graph> graph;
    std::int64_t workspace = 0;
    std::string plan;
  };
  std::map<SdpaGraphKey, Built> graphs;
};

CudnnSdpa::CudnnSdpa(int device) : impl_(std::make_unique<Impl>()) {
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) throw Error("cudnn: " + lib.error);
  impl_->device = device;
  use_device(device);
  RB_CUDNN_CHECK(fe::detail::create_handle(&impl_->handle));
}

CudnnSdpa::~CudnnSdpa() {
  if (impl_ && impl_->handle != nullptr) {
    (void)cudaSetDevice(impl_->device);
    impl_->graphs.clear();
    (void)fe::detail::destroy_handle(impl_->handle);
  }
}

std::int64_t CudnnSdpa::prepare(const SdpaGraphKey& key) {
  if (auto it = impl_->graphs.find(key); it != impl_->graphs.end()) return it->second.workspace;
  use_device(impl_->device);
  Impl::Built b;
  b.graph = sdpa_graph(key);
  RB_CUDNN_FE_CHECK(b.graph->validate());
  RB_CUDNN_FE_CHECK(b.graph->build_operation_graph(impl_->handle));
  RB_CUDNN_FE_CHECK(b.graph->create_execution_plans({fe::HeurMode_t::A}));
  RB_CUDNN_FE_CHECK(b.graph->check_support());
  RB_CUDNN_FE_CHECK(b.graph->build_plans());
  RB_CUDNN_FE_CHECK(b.graph->get_workspace_size(b.workspace));
  (void)b.graph->get_plan_name(b.plan);
  const std::int64_t ws = b.workspace;
  impl_->graphs.emplace(key, std::move(b));
  return ws;
}

void CudnnSdpa::run(const SdpaGraphKey& key, const SdpaPointers& p, void* workspace, cudaStream_t stream) {
  const auto it = impl_->graphs.find(key);
  if (it == impl_->graphs.end()) throw Error(fmt::format("cudnn: no graph prepared for {}", key_name(key)));
  RB_CUDNN_CHECK(fe::detail::set_stream(impl_->handle, stream));
  std::unordered_map<std::int64_t, void*> pack{{kQ, const_cast<void*>(p.q)},
                                               {kK, const_cast<void*>(p.k)},
                                               {kV, const_cast<void*>(p.v)},
                                               {kO, p.o},
                                               {kStats, p.stats}};
  RB_CUDNN_FE_CHECK(it->second.graph->execute(impl_->handle, pack, workspace));
}

std::map<std::string, std::string> CudnnSdpa::plans() const {
  std::map<std::string, std::string> out;
  for (const auto& [key, b] : impl_->graphs) out[key_name(key)] = b.plan;
  return out;
}

std::string validate_sdpa_graph(const SdpaGraphKey& key, int sm_version) {
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) return "cudnn: " + lib.error;
  auto st = sdpa_graph(key, sm_version)->validate();
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

struct CudnnSdpa::Impl {};

CudnnSdpa::CudnnSdpa(int) {
  throw Error("this build has no cuDNN kernel (cuDNN was not found when it was configured)");
}
CudnnSdpa::~CudnnSdpa() = default;
std::int64_t CudnnSdpa::prepare(const SdpaGraphKey&) { return 0; }
void CudnnSdpa::run(const SdpaGraphKey&, const SdpaPointers&, void*, cudaStream_t) {}
std::map<std::string, std::string> CudnnSdpa::plans() const { return {}; }
std::string validate_sdpa_graph(const SdpaGraphKey&, int) { return "this build has no cuDNN kernel"; }
std::map<std::string, std::string> cudnn_versions() { return {}; }

#endif

}  // namespace rb::ring
