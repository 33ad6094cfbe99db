// CPU twin of the attention kernel. FlashAttention-2's loop order on the CPU: for each pair, each KV
// head and each tile of BM query rows (times the GQA group), stream BN-key tiles through an online
// softmax whose running max and sum live per (row, head) across pairs, so several key segments of
// one step combine exactly. Tiles wholly above the diagonal are skipped; only tiles that straddle it
// are masked element-wise.
#include "kernels/attention_block_ref.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/cancellation.hpp"
#include "common/error.hpp"

namespace rb::kernels::ref {
namespace {

constexpr int kTileRows = 16;  // BM: query rows per tile (times the GQA group)
constexpr int kTileKeys = 64;  // BN: keys per tile

template <typename T>
void check_params(const AttentionBlockParams<T>& p) {
  if (p.hq <= 0 || p.hkv <= 0 || p.d <= 0 || p.hq % p.hkv != 0)
    throw Error(fmt::format("attention_block: bad heads Hq={} Hkv={} D={}", p.hq, p.hkv, p.d));
  for (const auto& pr : p.pairs) {
    if (pr.q.count < 0 || pr.k.count < 0 || pr.q.stride < 1 || pr.k.stride < 1 || pr.q_row0 < 0 || pr.k_row0 < 0 ||
        pr.q_row0 + pr.q.count > p.sq || pr.k_row0 + pr.k.count > p.sk)
      throw Error(fmt::format("attention_block: pair rows q[{}+{}] k[{}+{}] outside Q rows {} / K rows {}", pr.q_row0,
                              pr.q.count, pr.k_row0, pr.k.count, p.sq, p.sk));
  }
}

// Scratch for one tile; sized once per call.
template <typename T>
struct Tile {
  explicit Tile(int rows, int d) : q(rows * d), kt(d * kTileKeys), s(rows * kTileKeys) {}
  std::vector<T> q;   // (BM*G, D) scaled queries
  std::vector<T> kt;  // (D, BN) keys, transposed so the score loop runs over keys
  std::vector<T> s;   // (BM*G, BN) scores, then probabilities
};

template <typename T>
void run_pair_head(const AttentionBlockParams<T>& p, const BlockPair& pr, int g, Tile<T>& t, T* m_state, T* l_state) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const int group = p.hq / p.hkv;
  const int d = p.d;
  const bool masked_pair = p.causal && pr.mask == MaskClass::partial;

  for (std::int64_t i0 = 0; i0 < pr.q.count; i0 += kTileRows) {
    const int nq = static_cast<int>(std::min<std::int64_t>(kTileRows, pr.q.count - i0));
    const int rows = nq * group;
    for (int r = 0; r < rows; ++r) {
      const std::int64_t qrow = pr.q_row0 + i0 + r / group;
      const T* src = p.q + (qrow * p.hq + g * group + r % group) * d;
      T* dst = t.q.data() + r * d;
      for (int x = 0; x < d; ++x) dst[x] = src[x] * p.scale;
    }
    const std::int64_t q_first = pr.q.pos(i0), q_last = pr.q.pos(i0 + nq - 1);

    for (std::int64_t j0 = 0; j0 < pr.k.count; j0 += kTileKeys) {
      if (masked_pair && pr.k.pos(j0) > q_last) break;  // this and every later tile is above the diagonal
      if (p.cancel && p.cancel->load(std::memory_order_relaxed)) throw Cancelled("attention_block: cancelled");
      const int nk = static_cast<int>(std::min<std::int64_t>(kTileKeys, pr.k.count - j0));
      const bool tile_full = !masked_pair || pr.k.pos(j0 + nk - 1) <= q_first;

      for (int n = 0; n < nk; ++n) {
        const T* src = p.k + ((pr.k_row0 + j0 + n) * p.hkv + g) * d;
        for (int x = 0; x < d; ++x) t.kt[x * kTileKeys + n] = src[x];
      }
      for (int r = 0; r < rows; ++r) {
        T* __restrict s = t.s.data() + r * kTileKeys;
        const T* __restrict qr = t.q.data() + r * d;
        std::fill(s, s + nk, T(0));
        for (int x = 0; x < d; ++x) {
          const T qv = qr[x];
          const T* __restrict kr = t.kt.data() + x * kTileKeys;
          for (int n = 0; n < nk; ++n) s[n] += qv * kr[n];
        }
        if (!tile_full) {
          const std::int64_t qp = pr.q.pos(i0 + r / group);
          for (int n = 0; n < nk; ++n)
            if (pr.k.pos(j0 + n) > qp) s[n] = kNegInf;
        }
      }
      for (int r = 0; r < rows; ++r) {
        const std::int64_t idx = (pr.q_row0 + i0 + r / group) * p.hq + g * group + r % group;
        T* __restrict s = t.s.data() + r * kTileKeys;
        T mx = kNegInf;
        for (int n = 0; n < nk; ++n) mx = std::max(mx, s[n]);
        const T m_old = m_state[idx];
        const T m_new = std::max(m_old, mx);
        if (m_new == kNegInf) continue;  // every key of this tile is masked for this row
        const T alpha = m_old == kNegInf ? T(0) : std::exp(m_old - m_new);
        T sum = 0;
        for (int n = 0; n < nk; ++n) {
          s[n] = std::exp(s[n] - m_new);
          sum += s[n];
        }
        l_state[idx] = l_state[idx] * alpha + sum;
        m_state[idx] = m_new;
        T* __restrict acc = p.o + idx * d;
        if (alpha != T(1))
          for (int x = 0; x < d; ++x) acc[x] *= alpha;
        for (int n = 0; n < nk; ++n) {
          const T pn = s[n];
          if (pn == T(0)) continue;
          const T* __restrict vr = p.v + ((pr.k_row0 + j0 + n) * p.hkv + g) * d;
          for (int x = 0; x < d; ++x) acc[x] += pn * vr[x];
        }
      }
    }
  }
}

}  // namespace

template <typename T>
void attention_block(const AttentionBlockParams<T>& p) {
  check_params(p);
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const std::int64_t n = p.sq * p.hq;
  std::vector<T> m_state(n, kNegInf), l_state(n, T(0));
  std::fill(p.o, p.o + n * p.d, T(0));

  Tile<T> tile(kTileRows * (p.hq / p.hkv), p.d);
  for (const auto& pr : p.pairs) {
    if (pr.q.count == 0 || pr.k.count == 0) continue;
    if (p.causal && pr.mask == MaskClass::skip) continue;
    for (int g = 0; g < p.hkv; ++g) run_pair_head(p, pr, g, tile, m_state.data(), l_state.data());
  }
  for (std::int64_t r = 0; r < n; ++r) {
    if (l_state[r] == T(0)) {
      p.lse[r] = kNegInf;
      continue;
    }
    const T inv = T(1) / l_state[r];
    T* o = p.o + r * p.d;
    for (int x = 0; x < p.d; ++x) o[x] *= inv;
    p.lse[r] = m_state[r] + std::log(l_state[r]);
  }
}

template void attention_block<float>(const AttentionBlockParams<float>&);
template void attention_block<double>(const AttentionBlockParams<double>&);

}  // namespace rb::kernels::ref
