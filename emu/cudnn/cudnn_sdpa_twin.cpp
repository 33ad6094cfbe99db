// The twin of ring/cuda/cudnn_sdpa.cpp on the emulated device: class CudnnSdpa with the same
// process-wide graph cache (ring/cuda/cudnn_graph_cache.hpp: each shape "built" once per process,
// by the first executor that needs it), whose run() enqueues the float reference attention of one
// piece on the emulated stream, with the graph's attributes: the piece's rows against its keys,
// top-left causal where the key says so, scale 1/sqrt(D), O stored in bf16 (round to nearest even),
// Stats the natural-log log-sum-exp in fp32, in the (rows, Hq) layout the fold reads.
//
// cuDNN's backend API is not faked: where the library opens, each shape is first held to the real
// frontend's validate() for sm_90 (cudnn_sdpa_graphs.cpp), so the emulated device refuses what
// cuDNN would refuse there; the engines themselves run only on a GPU.
#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

#include <cuda_bf16.h>

#include "common/error.hpp"
#include "emu/runtime/emu_device.hpp"
#include "kernels/attention_block_ref.hpp"
#include "kernels/cuda_check.hpp"
#include "ring/cuda/cudnn_sdpa.hpp"

#ifdef RINGBENCH_HAVE_CUDNN
#include "kernels/cudnn_library.hpp"
#endif

namespace rb::ring {
namespace {

struct TwinHandle {};
struct TwinGraph {
  SdpaGraphKey key;
};
using TwinGraphs = CudnnGraphCache<TwinHandle, TwinGraph>;

TwinGraphs::Ops twin_ops() {
  TwinGraphs::Ops ops;
  ops.open = [](int) { return TwinHandle{}; };
  ops.build = [](TwinHandle&, int, const SdpaGraphKey& key, SdpaGraphFacts& facts) {
#ifdef RINGBENCH_HAVE_CUDNN
    if (kernels::cudnn::library().loaded)
      if (const std::string why = validate_sdpa_graph(key, 90); !why.empty())
        throw_api_error("cuDNN", __FILE__, __LINE__, "validate() for sm_90 (emulated device)", why);
#endif
    facts.plan = "emulated: the float reference attention";
    facts.workspace = 0;
    return TwinGraph{key};
  };
  ops.drain = [](int device) {
    if (cudaSetDevice(device) == cudaSuccess) (void)cudaDeviceSynchronize();
  };
  ops.close = [](int, TwinHandle&) {};
  return ops;
}

std::mutex g_twin_mu;
TwinGraphs* g_twin = nullptr;  // never destroyed, as the real wrapper's

TwinGraphs& twin_graphs() {
  std::lock_guard lock(g_twin_mu);
  if (g_twin == nullptr) g_twin = new TwinGraphs(twin_ops());  // NOLINT(cppcoreguidelines-owning-memory)
  return *g_twin;
}

// One piece: O (rows, Hq, D) bf16 and Stats (rows, Hq) fp32 from Q (rows, Hq, D), K and V
// (keys, Hkv, D), all bf16, rows H·D apart.
void run_piece(const SdpaGraphKey& key, const SdpaPointers& p) {
  const std::int64_t nq = key.rows * key.hq * key.d, nk = key.keys * key.hkv * key.d;
  std::vector<float> q(static_cast<std::size_t>(nq)), k(static_cast<std::size_t>(nk)), v(k.size());
  const auto* qb = static_cast<const __nv_bfloat16*>(p.q);
  const auto* kb = static_cast<const __nv_bfloat16*>(p.k);
  const auto* vb = static_cast<const __nv_bfloat16*>(p.v);
  for (std::int64_t i = 0; i < nq; ++i) q[static_cast<std::size_t>(i)] = __bfloat162float(qb[i]);
  for (std::int64_t i = 0; i < nk; ++i) {
    k[static_cast<std::size_t>(i)] = __bfloat162float(kb[i]);
    v[static_cast<std::size_t>(i)] = __bfloat162float(vb[i]);
  }
  const bool causal = key.mask == SdpaMask::causal_top_left;
  // Top-left causal: row i sees keys 0..i, which is the ordinary causal rule on positions 0..rows-1
  // against 0..keys-1.
  const kernels::BlockPair pair{Segment{0, 1, key.rows}, 0, Segment{0, 1, key.keys}, 0,
                                classify(Segment{0, 1, key.rows}, Segment{0, 1, key.keys}, causal)};
  std::vector<float> o(q.size()), lse(static_cast<std::size_t>(key.rows * key.hq));
  kernels::ref::AttentionBlockParams<float> ap;
  ap.q = q.data();
  ap.k = k.data();
  ap.v = v.data();
  ap.o = o.data();
  ap.lse = lse.data();
  ap.sq = key.rows;
  ap.sk = key.keys;
  ap.hq = key.hq;
  ap.hkv = key.hkv;
  ap.d = key.d;
  ap.causal = causal;
  ap.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(key.d)));
  ap.pairs = std::span<const kernels::BlockPair>(&pair, 1);
  kernels::ref::attention_block(ap);
  auto* ob = static_cast<__nv_bfloat16*>(p.o);
  for (std::int64_t i = 0; i < nq; ++i) ob[i] = __float2bfloat16_rn(o[static_cast<std::size_t>(i)]);
  for (std::size_t i = 0; i < lse.size(); ++i) p.stats[i] = lse[i];
}

}  // namespace

struct CudnnSdpa::Impl {
  explicit Impl(int device) : user(twin_graphs(), device) {}
  CudnnGraphUser<TwinGraphs> user;
};

CudnnSdpa::CudnnSdpa(int device) {
  RB_CUDA_CHECK(cudaSetDevice(device));
  impl_ = std::make_unique<Impl>(device);
}

CudnnSdpa::~CudnnSdpa() = default;

std::int64_t CudnnSdpa::prepare(const SdpaGraphKey& key) { return impl_->user.prepare(key).facts.workspace; }

void CudnnSdpa::run(const SdpaGraphKey& key, const SdpaPointers& p, void*, cudaStream_t stream) {
  (void)impl_->user.entry(key);  // prepared first, as the real wrapper requires
  const auto bf = sizeof(__nv_bfloat16);
  const auto q_bytes = static_cast<std::size_t>(key.rows * key.hq * key.d) * bf;
  const auto kv_bytes = static_cast<std::size_t>(key.keys * key.hkv * key.d) * bf;
  const auto stats_bytes = static_cast<std::size_t>(key.rows * key.hq) * sizeof(float);
  RB_CUDA_CHECK(emu::launch(stream, "cudnn sdpa " + graph_name(key),
                            {emu::reads(p.q, q_bytes), emu::reads(p.k, kv_bytes), emu::reads(p.v, kv_bytes),
                             emu::writes(p.o, q_bytes), emu::writes(p.stats, stats_bytes)},
                            [key, p] { run_piece(key, p); }));
}

CudnnGraphsUsed CudnnSdpa::used() const { return impl_->user.used(); }

int release_cudnn_graphs() noexcept {
  std::lock_guard lock(g_twin_mu);
  if (g_twin == nullptr) return 0;
  try {
    return g_twin->release();
  } catch (...) {
    return 0;
  }
}

}  // namespace rb::ring
