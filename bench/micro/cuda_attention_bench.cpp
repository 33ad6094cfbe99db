// A step's attention TFLOP/s by D, S, GQA group, mask class (one pair of S queries against S keys:
// `full` is an off-diagonal block, `partial` the causal diagonal) and kernel: ringbench's own, or
// cuDNN's as the executor runs it (the pair's SDPA pieces, each folded into fp32 accumulators:
// ring/plan/sdpa_pieces.hpp); and the merge kernel's GB/s. FLOPs count unmasked pairs only
// (docs/design.md §3). The goal shape is S=16384, D=128, causal, Hq=16/Hkv=2
// (CudaAttention/128/16384/8/1/kernel), held against peer_sdpa.py's cuDNN figure.
#include <benchmark/benchmark.h>

#include <cmath>
#include <functional>
#include <iterator>
#include <memory>
#include <vector>

#include <cuda_bf16.h>

#include "cuda_bench_cases.hpp"
#include "cuda_bench_util.hpp"
#include "kernels/attention_block.cuh"
#include "kernels/device_buffer.hpp"
#include "kernels/fill_inputs.cuh"
#include "kernels/fold_piece.cuh"
#include "kernels/merge_partials.cuh"
#include "ring/cuda/cudnn_sdpa.hpp"
#include "ring/plan/sdpa_pieces.hpp"

namespace rb::micro {
namespace {

using bf16 = __nv_bfloat16;
using kernels::DeviceBuffer;

// Args: D, S, GQA group (Hq = 16, Hkv = 16 / group), mask (0 full, 1 partial = causal diagonal).
void CudaAttention(benchmark::State& state) {
  if (!require_gpu(state)) return;
  const Config cfg = cuda_attention_config(static_cast<int>(state.range(0)), state.range(1),
                                           static_cast<int>(state.range(2)),
                                           state.range(4) == 0 ? Kernel::ringbench : Kernel::cudnn);
  const int d = cfg.head_dim, hq = cfg.heads, hkv = cfg.kv_heads;
  const std::int64_t s = cfg.seq;
  const kernels::BlockPair pair = cuda_attention_pair(s, state.range(3) == 1);
  const Segment q = pair.q, k = pair.k;
  DeviceBuffer<bf16> dq(s * hq * d), dk(s * hkv * d), dv(s * hkv * d);
  DeviceBuffer<float> o(s * hq * d), lse(s * hq);
  kernels::ref::FillParams fp{1, kernels::ref::Tensor::q, hq, d, DType::bfloat16};
  kernels::fill_inputs(dq.get(), {q}, fp, nullptr);
  fp.heads = hkv;
  fp.tensor = kernels::ref::Tensor::k;
  kernels::fill_inputs(dk.get(), {k}, fp, nullptr);
  fp.tensor = kernels::ref::Tensor::v;
  kernels::fill_inputs(dv.get(), {k}, fp, nullptr);
  std::function<void()> step;
  kernels::DeviceAttentionWork work;
  kernels::AttentionBlockParams p;
  std::unique_ptr<ring::CudnnSdpa> cudnn;
  DeviceBuffer<std::byte> workspace;
  DeviceBuffer<float> acc, lse_acc;  // cudnn: the accumulators the pieces fold into
  std::vector<ring::SdpaPiece> pieces;
  if (state.range(4) == 0) {
    work = kernels::DeviceAttentionWork(std::span(&pair, 1), s, s, true);
    p.q = dq.get(), p.k = dk.get(), p.v = dv.get(), p.o = o.get(), p.lse = lse.get();
    p.sq = s, p.sk = s, p.hq = hq, p.hkv = hkv, p.d = d, p.causal = true;
    p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
    work.bind(p);
    step = [&] { kernels::attention_block(p, nullptr); };
  } else {
    try {
      cudnn = std::make_unique<ring::CudnnSdpa>(0);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      return;
    }
    pieces = ring::pair_pieces(pair, true);
    std::int64_t ws = 0;
    for (const auto& piece : pieces) ws = std::max(ws, cudnn->prepare(ring::graph_key(piece, cfg)));
    if (ws > 0) workspace = DeviceBuffer<std::byte>(static_cast<std::size_t>(ws));
    acc = DeviceBuffer<float>(static_cast<std::size_t>(s * hq * d));
    lse_acc = DeviceBuffer<float>(static_cast<std::size_t>(s * hq));
    step = [&] {
      auto* o_piece = reinterpret_cast<bf16*>(o.get());  // as the executor: o_part's memory as bf16
      bool first = true;
      for (const auto& piece : pieces) {
        const ring::SdpaPointers ptr{dq.get() + ring::q_offset(piece, cfg), dk.get() + ring::kv_offset(piece, cfg),
                                     dv.get() + ring::kv_offset(piece, cfg), o_piece + ring::q_offset(piece, cfg),
                                     lse.get() + ring::stats_offset(piece, cfg)};
        cudnn->run(ring::graph_key(piece, cfg), ptr, workspace.get(), nullptr);
        kernels::fold_piece({acc.get(), lse_acc.get(), o_piece, lse.get(), piece.q_row0, piece.rows, hq, d,
                             first ? kernels::FoldMode::write : kernels::FoldMode::merge},
                            nullptr);
        first = false;
      }
    };
  }
  step();  // warm-up (and the shared-memory opt-in)
  RB_CUDA_CHECK(cudaDeviceSynchronize());
  for (auto _ : state) state.SetIterationTime(time_on_gpu(nullptr, step));
  const double flops = 4.0 * d * hq * static_cast<double>(unmasked_pairs(q, k, true));
  state.counters["TFLOP/s"] = benchmark::Counter(flops * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["unmasked_pairs"] = static_cast<double>(unmasked_pairs(q, k, true));
}
BENCHMARK(CudaAttention)
    ->ArgNames({"D", "S", "group", "causal_diag", "cudnn"})
    ->ArgsProduct({{std::begin(kCudaAttentionDims), std::end(kCudaAttentionDims)},
                   {std::begin(kCudaAttentionSeqs), std::end(kCudaAttentionSeqs)},
                   {std::begin(kCudaAttentionGroups), std::end(kCudaAttentionGroups)},
                   {0, 1},
                   {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Merge of (rows, 16 heads, D) fp32 partials: reads O_a, O_b, L_a, L_b, writes O_a, L_a.
void CudaMerge(benchmark::State& state) {
  if (!require_gpu(state)) return;
  const int d = static_cast<int>(state.range(0)), hq = 16;
  const std::int64_t rows = state.range(1), n = rows * hq;
  DeviceBuffer<float> oa(n * d), ob(n * d), la(n), lb(n);
  RB_CUDA_CHECK(cudaMemset(oa.get(), 0, oa.bytes()));
  RB_CUDA_CHECK(cudaMemset(ob.get(), 0, ob.bytes()));
  RB_CUDA_CHECK(cudaMemset(la.get(), 0, la.bytes()));  // L = 0: every row takes the two-sided path
  RB_CUDA_CHECK(cudaMemset(lb.get(), 0, lb.bytes()));
  const kernels::MergeParams p{oa.get(), la.get(), ob.get(), lb.get(), rows, hq, d};
  kernels::merge_partials(p, nullptr);
  RB_CUDA_CHECK(cudaDeviceSynchronize());
  for (auto _ : state) state.SetIterationTime(time_on_gpu(nullptr, [&] { kernels::merge_partials(p, nullptr); }));
  const double bytes = 4.0 * static_cast<double>(n) * (3.0 * d + 3.0);
  state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(CudaMerge)
    ->ArgNames({"D", "rows"})
    ->ArgsProduct({{64, 128}, {4096, 32768}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rb::micro
