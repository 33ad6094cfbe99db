// The CPU attention kernel (kernels/attention_block_ref.cpp) per shape: one rank's diagonal block
// (partial mask), an off-diagonal block (full), by dtype, D and GQA group. Reports FLOP/s of the
// unmasked work (docs/design.md §3 count), so causal and full blocks compare fairly.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "kernels/attention_block_ref.hpp"
#include "kernels/fill_inputs_ref.hpp"

namespace {

using namespace rb;
namespace kref = rb::kernels::ref;

template <typename T>
void BM_AttentionBlockRef(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const int d = static_cast<int>(state.range(1));
  const int hq = 8, hkv = static_cast<int>(8 / state.range(2));
  const bool diagonal = state.range(3) != 0;
  const Segment qs{diagonal ? 0 : n, 1, n}, ks{0, 1, n};
  std::vector<T> q(n * hq * d), k(n * hkv * d), v(k.size()), o(q.size()), lse(n * hq);
  kref::fill_inputs(q.data(), {qs}, {1, kref::Tensor::q, hq, d, DType::float32});
  kref::fill_inputs(k.data(), {ks}, {1, kref::Tensor::k, hkv, d, DType::float32});
  kref::fill_inputs(v.data(), {ks}, {1, kref::Tensor::v, hkv, d, DType::float32});
  const kernels::BlockPair pair{qs, 0, ks, 0, classify(qs, ks, true)};
  kref::AttentionBlockParams<T> p;
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.o = o.data();
  p.lse = lse.data();
  p.sq = n;
  p.sk = n;
  p.hq = hq;
  p.hkv = hkv;
  p.d = d;
  p.scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
  p.pairs = std::span(&pair, 1);
  for (auto _ : state) {
    kref::attention_block(p);
    benchmark::DoNotOptimize(o.data());
    benchmark::ClobberMemory();
  }
  const double flops = 4.0 * d * hq * static_cast<double>(unmasked_pairs(qs, ks, true));
  state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(diagonal ? "diagonal (partial)" : "off-diagonal (full)");
}

// Args: tokens per block, D, GQA group (Hq/Hkv with Hq = 8), diagonal?
void shapes(benchmark::internal::Benchmark* b) {
  for (int diag : {1, 0})
    for (int group : {1, 4})
      for (int d : {64, 128}) b->Args({512, d, group, diag});
  b->Args({2048, 64, 4, 1});
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_AttentionBlockRef<float>)->Apply(shapes);
BENCHMARK(BM_AttentionBlockRef<double>)->Args({512, 64, 4, 1})->Args({512, 64, 4, 0})->Unit(benchmark::kMillisecond);

}  // namespace
