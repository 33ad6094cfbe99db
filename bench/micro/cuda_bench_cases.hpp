// The configurations the CUDA micro-benchmarks run, in a header that needs no CUDA, so that a CPU
// test (tests/device/test_gpu_cases.cpp) holds each to the cuda backend's rule and the cudnn
// refusals: a benchmark the backend would refuse is found in CI, not in a lent GPU's minutes.
#pragma once

#include <cstdint>

#include "common/config.hpp"
#include "kernels/block_pair.hpp"

namespace rb::micro {

// CudaPassC8: a whole zig-zag ring pass at c = 8, the plate's heads (16 query, 2 K/V, D = 128).
inline Config cuda_pass_config(std::int64_t seq) {
  Config cfg;
  cfg.seq = seq;
  cfg.cp = 8;
  cfg.split = Split::zigzag;
  cfg.heads = 16;
  cfg.kv_heads = 2;
  cfg.head_dim = 128;
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  return cfg;
}
inline constexpr std::int64_t kCudaPassSeqs[] = {8192, 32768};

// CudaAttention: one pair of s queries against s keys on one rank, Hq = 16 and Hkv = 16 / group.
inline Config cuda_attention_config(int d, std::int64_t s, int group, Kernel kernel) {
  Config cfg;
  cfg.seq = s;
  cfg.cp = 1;
  cfg.heads = 16;
  cfg.kv_heads = 16 / group;
  cfg.head_dim = d;
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  cfg.kernel = kernel;
  return cfg;
}
// Its pair: `causal_diag` the causal diagonal (partial), else an off-diagonal block (full: every key
// before every query).
inline kernels::BlockPair cuda_attention_pair(std::int64_t s, bool causal_diag) {
  const Segment q{causal_diag ? 0 : s, 1, s}, k{0, 1, s};
  return kernels::BlockPair{q, 0, k, 0, classify(q, k, true)};
}
inline constexpr int kCudaAttentionDims[] = {64, 128};
inline constexpr std::int64_t kCudaAttentionSeqs[] = {4096, 16384};
inline constexpr int kCudaAttentionGroups[] = {1, 8};

}  // namespace rb::micro
