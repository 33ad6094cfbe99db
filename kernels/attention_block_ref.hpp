// CPU twin of the attention kernel: blockwise attention of query segments against key segments,
// producing the partial output O and log-sum-exp L over the keys seen (docs/design.md §3). The float32 path
// is tiled so the compiler vectorises its inner loops; the float64 path is the reference arithmetic.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include "kernels/block_pair.hpp"

namespace rb::kernels::ref {

template <typename T>
struct AttentionBlockParams {
  const T* q = nullptr;  // (Sq, Hq, D)
  const T* k = nullptr;  // (Sk, Hkv, D)
  const T* v = nullptr;  // (Sk, Hkv, D)
  T* o = nullptr;        // (Sq, Hq, D): softmax-normalised partial output, 0 where no key was seen
  T* lse = nullptr;      // (Sq, Hq): log of the sum of exp(scaled scores); -inf where no key was seen
  std::int64_t sq = 0;   // rows of Q/O
  std::int64_t sk = 0;   // rows of K/V
  int hq = 1, hkv = 1, d = 1;
  bool causal = true;
  T scale = 1;  // usually 1/sqrt(D)
  std::span<const BlockPair> pairs;
  // Polled once per tile where set: a long call (one rank holding a whole long sequence, the
  // reference's rows) must end within milliseconds of a timeout, not at its end.
  const std::atomic<bool>* cancel = nullptr;
};

// Overwrites every row of O and L: rows touched by no unmasked pair get O = 0 and L = -inf.
// Throws rb::Error when a pair points outside the buffers or the heads do not group, and
// rb::Cancelled once *cancel is set (O and L are then partial).
template <typename T>
void attention_block(const AttentionBlockParams<T>& p);

}  // namespace rb::kernels::ref
