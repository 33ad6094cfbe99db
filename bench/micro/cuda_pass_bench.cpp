// A whole c=8 ring pass on one GPU, replayed as a CUDA Graph against issued eagerly (the launch
// overhead the graph removes), in both rank modes; and device-to-device copy bandwidth, the ceiling
// of the local transport's K/V transfers: the driver's copy, and the stamped copy kernel the
// transport uses (kernels/stamped_copy.cuh), which must not be the slower of the two.
#include <benchmark/benchmark.h>

#include <iterator>

#include "cuda_bench_cases.hpp"
#include "cuda_bench_util.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/stamped_copy.cuh"
#include "ring/plan/plan.hpp"

namespace rb::micro {
namespace {

// Args: launch (0 graph, 1 eager), mode (0 isolated, 1 concurrent), S.
void CudaPassC8(benchmark::State& state) {
  if (!require_gpu(state)) return;
  const Config cfg = cuda_pass_config(state.range(2));
  ring::CudaOptions opts;
  opts.launch = state.range(0) == 0 ? ring::CudaLaunch::graph : ring::CudaLaunch::eager;
  opts.mode = state.range(1) == 0 ? ring::CudaRankMode::isolated : ring::CudaRankMode::concurrent;
  auto ex = ring::make_cuda_executor(ring::make_plan(cfg), opts);
  for (auto _ : state) state.SetIterationTime(static_cast<double>(ex->run_pass(false).wall_ns) * 1e-9);
  // Per GPU, as results report it: isolated mode composes the ring as if each of the 8 virtual ranks
  // had the GPU to itself (so / 8); concurrent mode runs all 8 at once on the one GPU (so / 1).
  state.counters["TFLOP/s per GPU"] = benchmark::Counter(ex->plan().flops() / ex->gpus_at_work() * 1e-12,
                                                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["TFLOP/s aggregate"] = benchmark::Counter(ex->plan().flops() * 1e-12,
                                                           benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(to_string(opts.launch)) + "/" + std::string(to_string(opts.mode)));
}
BENCHMARK(CudaPassC8)
    ->ArgNames({"eager", "concurrent", "S"})
    ->ArgsProduct({{0, 1}, {0, 1}, {std::begin(kCudaPassSeqs), std::end(kCudaPassSeqs)}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Arg: bytes per copy.
void CudaCopyD2D(benchmark::State& state) {
  if (!require_gpu(state)) return;
  const auto bytes = static_cast<std::size_t>(state.range(0));
  kernels::DeviceBuffer<std::byte> a(bytes), b(bytes);
  const ring::CudaStream s = ring::make_stream();
  RB_CUDA_CHECK(cudaMemsetAsync(a.get(), 1, bytes, s.get()));
  for (auto _ : state)
    state.SetIterationTime(time_on_gpu(s.get(), [&] {
      RB_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, s.get()));
    }));
  // A device-to-device copy reads and writes every byte.
  state.counters["GB/s"] = benchmark::Counter(2.0 * static_cast<double>(bytes) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(CudaCopyD2D)->RangeMultiplier(8)->Range(1 << 20, 1 << 29)->UseManualTime()->Unit(benchmark::kMicrosecond);

// Arg: bytes per copy. The local transport's copy, with its stamp.
void CudaStampedCopy(benchmark::State& state) {
  if (!require_gpu(state)) return;
  const auto bytes = static_cast<std::size_t>(state.range(0));
  kernels::DeviceBuffer<std::byte> a(bytes), b(bytes);
  kernels::DeviceBuffer<kernels::ExecStamp> stamp(1);
  const ring::CudaStream s = ring::make_stream();
  RB_CUDA_CHECK(cudaMemsetAsync(a.get(), 1, bytes, s.get()));
  RB_CUDA_CHECK(cudaMemsetAsync(stamp.get(), 0, stamp.bytes(), s.get()));
  for (auto _ : state)
    state.SetIterationTime(time_on_gpu(s.get(), [&] {
      kernels::stamped_copy(kernels::StampedCopyParams{b.get(), a.get(), static_cast<std::int64_t>(bytes), stamp.get()},
                            s.get());
    }));
  state.counters["GB/s"] = benchmark::Counter(2.0 * static_cast<double>(bytes) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(CudaStampedCopy)->RangeMultiplier(8)->Range(1 << 20, 1 << 29)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rb::micro
