// The CPU attention backward (kernels/attention_block_bwd_ref.cpp) beside the forward on the same
// shapes: one rank's diagonal block (partial mask) and an off-diagonal one (full). Each reports
// FLOP/s of its own convention (docs/metrics.md): the forward's 4·D·Hq per unmasked pair, the
// backward's 2.5 times that, so the two rates compare per FLOP (issue 43: within 2x of each other).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "kernels/attention_block_bwd_ref.hpp"
#include "kernels/attention_block_ref.hpp"
#include "kernels/fill_inputs_ref.hpp"

namespace {

using namespace rb;
namespace kref = rb::kernels::ref;

struct Block {
  Segment qs, ks;
  int hq = 8, hkv = 2, d = 64;
  std::vector<float> q, k, v, o, lse, d_o, delta, dq, dk, dv;
  kernels::BlockPair pair{};
};

Block make_block(std::int64_t n, int d, int group, bool diagonal) {
  Block b;
  b.qs = Segment{diagonal ? 0 : n, 1, n};
  b.ks = Segment{0, 1, n};
  b.d = d;
  b.hkv = b.hq / group;
  b.q.resize(n * b.hq * d);
  b.k.resize(n * b.hkv * d);
  b.v.resize(b.k.size());
  b.o.resize(b.q.size());
  b.d_o.resize(b.q.size());
  b.lse.resize(n * b.hq);
  b.delta.resize(b.lse.size());
  b.dq.resize(b.q.size());
  b.dk.resize(b.k.size());
  b.dv.resize(b.k.size());
  kref::fill_inputs(b.q.data(), {b.qs}, {1, kref::Tensor::q, b.hq, d, DType::float32});
  kref::fill_inputs(b.d_o.data(), {b.qs}, {1, kref::Tensor::d_o, b.hq, d, DType::float32});
  kref::fill_inputs(b.k.data(), {b.ks}, {1, kref::Tensor::k, b.hkv, d, DType::float32});
  kref::fill_inputs(b.v.data(), {b.ks}, {1, kref::Tensor::v, b.hkv, d, DType::float32});
  b.pair = kernels::BlockPair{b.qs, 0, b.ks, 0, classify(b.qs, b.ks, true)};
  return b;
}

kref::AttentionBlockParams<float> forward_params(Block& b) {
  kref::AttentionBlockParams<float> p;
  p.q = b.q.data();
  p.k = b.k.data();
  p.v = b.v.data();
  p.o = b.o.data();
  p.lse = b.lse.data();
  p.sq = b.qs.count;
  p.sk = b.ks.count;
  p.hq = b.hq;
  p.hkv = b.hkv;
  p.d = b.d;
  p.scale = 1.0f / std::sqrt(static_cast<float>(b.d));
  p.pairs = std::span(&b.pair, 1);
  return p;
}

double forward_flops(const Block& b) {
  return 4.0 * b.d * b.hq * static_cast<double>(unmasked_pairs(b.qs, b.ks, true));
}

void BM_AttentionForwardRef(benchmark::State& state) {
  Block b = make_block(state.range(0), static_cast<int>(state.range(1)), static_cast<int>(state.range(2)),
                       state.range(3) != 0);
  const auto p = forward_params(b);
  for (auto _ : state) {
    kref::attention_block(p);
    benchmark::DoNotOptimize(b.o.data());
    benchmark::ClobberMemory();
  }
  state.counters["FLOP/s"] = benchmark::Counter(forward_flops(b), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(state.range(3) != 0 ? "forward, diagonal" : "forward, off-diagonal");
}

void BM_AttentionBackwardRef(benchmark::State& state) {
  Block b = make_block(state.range(0), static_cast<int>(state.range(1)), static_cast<int>(state.range(2)),
                       state.range(3) != 0);
  kref::attention_block(forward_params(b));  // the final O and log-sum-exp the backward reads
  kref::attention_delta(b.o.data(), b.d_o.data(), b.delta.data(), b.qs.count, b.hq, b.d);
  kref::AttentionBlockBwdParams<float> p;
  p.q = b.q.data();
  p.k = b.k.data();
  p.v = b.v.data();
  p.d_o = b.d_o.data();
  p.lse = b.lse.data();
  p.delta = b.delta.data();
  p.dq = b.dq.data();
  p.dk = b.dk.data();
  p.dv = b.dv.data();
  p.sq = b.qs.count;
  p.sk = b.ks.count;
  p.hq = b.hq;
  p.hkv = b.hkv;
  p.d = b.d;
  p.scale = 1.0f / std::sqrt(static_cast<float>(b.d));
  p.pairs = std::span(&b.pair, 1);
  for (auto _ : state) {
    kref::attention_block_backward(p);
    benchmark::DoNotOptimize(b.dq.data());
    benchmark::ClobberMemory();
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.5 * forward_flops(b), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(state.range(3) != 0 ? "backward, diagonal" : "backward, off-diagonal");
}

// Args: tokens per block, D, GQA group (Hq/Hkv with Hq = 8), diagonal?
void block_shapes(benchmark::internal::Benchmark* b) {
  for (int diag : {1, 0})
    for (int d : {64, 128}) b->Args({512, d, 4, diag});
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_AttentionForwardRef)->Apply(block_shapes);
BENCHMARK(BM_AttentionBackwardRef)->Apply(block_shapes);

}  // namespace
