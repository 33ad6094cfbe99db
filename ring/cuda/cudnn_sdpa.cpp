// The cudnn kernel on the real device (see cudnn_sdpa.hpp): the process's handles and built graphs, and
// one piece's execution. The graphs themselves are cudnn_sdpa_graphs.cpp's; the emulated device links
// its twin of this file instead (emu/cudnn/cudnn_sdpa_twin.cpp).
#include "ring/cuda/cudnn_sdpa.hpp"

#include <cmath>
#include <exception>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "ring/cuda/cuda_devices.hpp"

#ifdef RINGBENCH_HAVE_CUDNN
#include "kernels/cudnn_library.hpp"
#include "ring/cuda/cudnn_check.hpp"
#include "ring/cuda/cudnn_sdpa_graphs.hpp"
#endif

namespace rb::ring {

#ifdef RINGBENCH_HAVE_CUDNN
namespace fe = cudnn_frontend;

namespace {

using namespace cudnn_graphs;

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
    (void)fe::detail::set_stream(h, nullptr);  // the last executor's stream is gone by now
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

// The handle is the process's and outlives this executor's streams: it is left on the legacy stream,
// never on a stream about to be destroyed (an error is ignored: a destructor must not throw).
CudnnSdpa::~CudnnSdpa() {
  if (impl_ && impl_->handle) (void)fe::detail::set_stream(impl_->handle, nullptr);
}

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

#else  // no cuDNN in this build

struct CudnnSdpa::Impl {};

CudnnSdpa::CudnnSdpa(int) {
  throw Error("this build has no cuDNN kernel (cuDNN was not found when it was configured)");
}
CudnnSdpa::~CudnnSdpa() = default;  // no handle: nothing to leave
std::int64_t CudnnSdpa::prepare(const SdpaGraphKey&) { return 0; }
void CudnnSdpa::run(const SdpaGraphKey&, const SdpaPointers&, void*, cudaStream_t) {}
CudnnGraphsUsed CudnnSdpa::used() const { return {}; }
int release_cudnn_graphs() noexcept { return 0; }

#endif

}  // namespace rb::ring
