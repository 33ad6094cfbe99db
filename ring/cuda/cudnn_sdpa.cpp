// cuDNN SDPA graphs for the cudnn kernel (see cudnn_sdpa.hpp).
#include "ring/cuda/cudnn_sdpa.hpp"

#include <cmath>
#include <mutex>
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

fe::AttentionImplementation_t frontend_implementation(SdpaImplementation v) {
  return v == SdpaImplementation::composite ? fe::AttentionImplementation_t::COMPOSITE
                                            : fe::AttentionImplementation_t::UNIFIED;
}

// The graph of one piece shape over the buffers' (rows, H, D) layout: logical dims [1, H, S, D] with
// strides {S·H·D, D, H·D, 1}, so a row offset is a pointer offset; the stats [1, Hq, S, 1] with
// strides {S·Hq, 1, Hq, 1} land in the (rows, Hq) layout the merge reads. The implementation is
// chosen, not left to AUTO (cudnn_graph_cache.hpp, sdpa_implementation).
// `sm_version` > 0 validates for that GPU generation without a device (90: Hopper).
std::shared_ptr<fe::graph::Graph> sdpa_graph(const SdpaGraphKey& k, SdpaImplementation impl, int sm_version = 0) {
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

using Graph = std::shared_ptr<fe::graph::Graph>;
using ProcessGraphs = CudnnGraphCache<cudnnHandle_t, Graph>;

ProcessGraphs::Ops cudnn_ops() {
  ProcessGraphs::Ops ops;
  ops.open = [](int device) {
    use_device(device);
    cudnnHandle_t h = nullptr;
    RB_CUDNN_CHECK(fe::detail::create_handle(&h));
    return h;
  };
  ops.build = [](cudnnHandle_t& h, int device, const SdpaGraphKey& key, SdpaGraphFacts& facts) {
    use_device(device);
    Graph g = sdpa_graph(key, facts.implementation);
    RB_CUDNN_FE_CHECK(g->validate());
    RB_CUDNN_FE_CHECK(g->build_operation_graph(h));
    RB_CUDNN_FE_CHECK(g->create_execution_plans({fe::HeurMode_t::A}));
    RB_CUDNN_FE_CHECK(g->check_support());
    RB_CUDNN_FE_CHECK(g->build_plans());
    RB_CUDNN_FE_CHECK(g->get_workspace_size(facts.workspace));
    (void)g->get_plan_name(facts.plan);
    return g;
  };
  // Errors are ignored: the release runs at exit and must not throw; a device that failed has
  // nothing left to wait for.
  ops.drain = [](int device) {
    if (cudaSetDevice(device) == cudaSuccess) (void)cudaDeviceSynchronize();
  };
  ops.close = [](int device, cudnnHandle_t& h) {
    (void)cudaSetDevice(device);
    (void)fe::detail::destroy_handle(h);
  };
  return ops;
}

// The process's graphs: made by the first cudnn executor, released by release_cudnn_graphs() and
// never destroyed, so that no static destructor runs cuDNN or CUDA after CUDA's own teardown.
std::mutex g_graphs_mu;
ProcessGraphs* g_graphs = nullptr;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

ProcessGraphs& process_graphs() {
  std::lock_guard lock(g_graphs_mu);
  if (g_graphs == nullptr) g_graphs = new ProcessGraphs(cudnn_ops());  // NOLINT(cppcoreguidelines-owning-memory)
  return *g_graphs;
}

}  // namespace

struct CudnnSdpa::Impl {
  explicit Impl(int device) : user(process_graphs(), device) {}
  CudnnGraphUser<ProcessGraphs> user;
  cudnnHandle_t handle = nullptr;  // the device's, the process's
};

CudnnSdpa::CudnnSdpa(int device) {
  if (const auto& lib = kernels::cudnn::library(); !lib.loaded) throw Error("cudnn: " + lib.error);
  use_device(device);
  impl_ = std::make_unique<Impl>(device);
  impl_->handle = process_graphs().handle(device);
}

CudnnSdpa::~CudnnSdpa() = default;

std::int64_t CudnnSdpa::prepare(const SdpaGraphKey& key) { return impl_->user.prepare(key).facts.workspace; }

void CudnnSdpa::run(const SdpaGraphKey& key, const SdpaPointers& p, void* workspace, cudaStream_t stream) {
  const auto& entry = impl_->user.entry(key);
  RB_CUDNN_CHECK(fe::detail::set_stream(impl_->handle, stream));
  std::unordered_map<std::int64_t, void*> pack{{kQ, const_cast<void*>(p.q)},
                                               {kK, const_cast<void*>(p.k)},
                                               {kV, const_cast<void*>(p.v)},
                                               {kO, p.o},
                                               {kStats, p.stats}};
  RB_CUDNN_FE_CHECK(entry.graph->execute(impl_->handle, pack, workspace));
}

CudnnGraphsUsed CudnnSdpa::used() const { return impl_->user.used(); }

int release_cudnn_graphs() noexcept {
  std::lock_guard lock(g_graphs_mu);
  if (g_graphs == nullptr) return 0;
  try {
    return g_graphs->release();
  } catch (...) {
    return 0;
  }
}

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

struct CudnnSdpa::Impl {};

CudnnSdpa::CudnnSdpa(int) {
  throw Error("this build has no cuDNN kernel (cuDNN was not found when it was configured)");
}
CudnnSdpa::~CudnnSdpa() = default;
std::int64_t CudnnSdpa::prepare(const SdpaGraphKey&) { return 0; }
void CudnnSdpa::run(const SdpaGraphKey&, const SdpaPointers&, void*, cudaStream_t) {}
CudnnGraphsUsed CudnnSdpa::used() const { return {}; }
int release_cudnn_graphs() noexcept { return 0; }
std::string validate_sdpa_graph(const SdpaGraphKey&, int) { return "this build has no cuDNN kernel"; }
std::map<std::string, std::string> cudnn_versions() { return {}; }

#endif

}  // namespace rb::ring
