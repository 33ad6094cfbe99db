// CPU twin of the attention backward (see attention_block_bwd_ref.hpp). FlashAttention-2's backward
// loop order on the CPU: for each pair and K/V head, key tiles outer and query tiles inner, so the
// tile's dK and dV accumulate in a (BN, D) buffer that is added to the block once; dQ rows take
// their share from every key tile. A key tile starts at the first query tile that can see it under
// a causal mask, and only tiles that straddle the diagonal are masked element-wise.
#include "kernels/attention_block_bwd_ref.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/cancellation.hpp"
#include "common/error.hpp"

namespace rb::kernels::ref {
namespace {

constexpr int kBwdTileRows = 16;  // BM: query rows per tile (times the GQA group)
constexpr int kBwdTileKeys = 64;  // BN: keys per tile

template <typename T>
void check_params(const AttentionBlockBwdParams<T>& p) {
  if (p.hq <= 0 || p.hkv <= 0 || p.d <= 0 || p.hq % p.hkv != 0)
    throw Error(fmt::format("attention_block_backward: bad heads Hq={} Hkv={} D={}", p.hq, p.hkv, p.d));
  for (const auto& pr : p.pairs)
    if (pr.q.count < 0 || pr.k.count < 0 || pr.q.stride < 1 || pr.k.stride < 1 || pr.q_row0 < 0 || pr.k_row0 < 0 ||
        pr.q_row0 + pr.q.count > p.sq || pr.k_row0 + pr.k.count > p.sk)
      throw Error(fmt::format("attention_block_backward: pair rows q[{}+{}] k[{}+{}] outside Q rows {} / K rows {}",
                              pr.q_row0, pr.q.count, pr.k_row0, pr.k.count, p.sq, p.sk));
}

// Scratch for one (key tile, query tile); sized once per call.
template <typename T>
struct BwdTile {
  BwdTile(int rows, int d)
      : q(rows * d),
        d_o(rows * d),
        kt(d * kBwdTileKeys),
        vt(d * kBwdTileKeys),
        s(rows * kBwdTileKeys),
        dp(rows * kBwdTileKeys),
        dk(kBwdTileKeys * d),
        dv(kBwdTileKeys * d),
        lse(rows),
        delta(rows) {}
  std::vector<T> q, d_o;  // (BM*G, D): scaled queries, output gradients
  std::vector<T> kt, vt;  // (D, BN): keys and values transposed, so the score loops run over keys
  std::vector<T> s, dp;   // (BM*G, BN): scores then P, and dP then dS
  std::vector<T> dk, dv;  // (BN, D): the key tile's gradients over every query tile
  std::vector<T> lse, delta;
};

// The first query index of q at or after position `pos` (q.count when none).
std::int64_t first_query_at(const Segment& q, std::int64_t pos) {
  if (pos <= q.start) return 0;
  const std::int64_t i = (pos - q.start + q.stride - 1) / q.stride;
  return std::min(i, q.count);
}

template <typename T>
void run_pair_head(const AttentionBlockBwdParams<T>& p, const BlockPair& pr, int g, BwdTile<T>& t) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const int group = p.hq / p.hkv;
  const int d = p.d;
  const bool masked_pair = p.causal && pr.mask == MaskClass::partial;

  for (std::int64_t j0 = 0; j0 < pr.k.count; j0 += kBwdTileKeys) {
    const int nk = static_cast<int>(std::min<std::int64_t>(kBwdTileKeys, pr.k.count - j0));
    const std::int64_t k_first = pr.k.pos(j0), k_last = pr.k.pos(j0 + nk - 1);
    // Under the mask, query tiles before the first query that sees this tile's first key add nothing.
    std::int64_t i_begin = masked_pair ? first_query_at(pr.q, k_first) : 0;
    i_begin -= i_begin % kBwdTileRows;
    if (i_begin >= pr.q.count) continue;
    for (int n = 0; n < nk; ++n) {
      const std::int64_t row = ((pr.k_row0 + j0 + n) * p.hkv + g) * d;
      for (int x = 0; x < d; ++x) {
        t.kt[x * kBwdTileKeys + n] = p.k[row + x];
        t.vt[x * kBwdTileKeys + n] = p.v[row + x];
      }
    }
    std::fill(t.dk.begin(), t.dk.end(), T(0));
    std::fill(t.dv.begin(), t.dv.end(), T(0));

    for (std::int64_t i0 = i_begin; i0 < pr.q.count; i0 += kBwdTileRows) {
      if (p.cancel && p.cancel->load(std::memory_order_relaxed)) throw Cancelled("attention_block_backward: cancelled");
      const int nq = static_cast<int>(std::min<std::int64_t>(kBwdTileRows, pr.q.count - i0));
      const int rows = nq * group;
      const bool tile_full = !masked_pair || k_last <= pr.q.pos(i0);
      for (int r = 0; r < rows; ++r) {
        const std::int64_t idx = (pr.q_row0 + i0 + r / group) * p.hq + g * group + r % group;
        const T* qs = p.q + idx * d;
        const T* gs = p.d_o + idx * d;
        T* qd = t.q.data() + r * d;
        T* gd = t.d_o.data() + r * d;
        for (int x = 0; x < d; ++x) {
          qd[x] = qs[x] * p.scale;
          gd[x] = gs[x];
        }
        t.lse[r] = p.lse[idx];
        t.delta[r] = p.delta[idx];
      }
      // S = (scale·Q) K^T and dP = dO V^T, then P and dS in place.
      for (int r = 0; r < rows; ++r) {
        T* __restrict s = t.s.data() + r * kBwdTileKeys;
        T* __restrict dp = t.dp.data() + r * kBwdTileKeys;
        const T* __restrict qr = t.q.data() + r * d;
        const T* __restrict gr = t.d_o.data() + r * d;
        std::fill(s, s + nk, T(0));
        std::fill(dp, dp + nk, T(0));
        for (int x = 0; x < d; ++x) {
          const T qv = qr[x], gv = gr[x];
          const T* __restrict kr = t.kt.data() + x * kBwdTileKeys;
          const T* __restrict vr = t.vt.data() + x * kBwdTileKeys;
          for (int n = 0; n < nk; ++n) {
            s[n] += qv * kr[n];
            dp[n] += gv * vr[n];
          }
        }
        const T lse = t.lse[r], delta = t.delta[r];
        if (lse == kNegInf) {  // the row sees no key at all: no probability, no gradient
          std::fill(s, s + nk, T(0));
          std::fill(dp, dp + nk, T(0));
          continue;
        }
        for (int n = 0; n < nk; ++n) s[n] = std::exp(s[n] - lse);
        if (!tile_full) {
          const std::int64_t qp = pr.q.pos(i0 + r / group);
          for (int n = 0; n < nk; ++n)
            if (pr.k.pos(j0 + n) > qp) s[n] = T(0);
        }
        for (int n = 0; n < nk; ++n) dp[n] = s[n] * (dp[n] - delta);
      }
      // dV += P^T dO and dK += dS^T (scale·Q), in the tile's buffers.
      for (int r = 0; r < rows; ++r) {
        const T* __restrict s = t.s.data() + r * kBwdTileKeys;
        const T* __restrict ds = t.dp.data() + r * kBwdTileKeys;
        const T* __restrict qr = t.q.data() + r * d;
        const T* __restrict gr = t.d_o.data() + r * d;
        for (int n = 0; n < nk; ++n) {
          const T pn = s[n], dn = ds[n];
          T* __restrict dvn = t.dv.data() + n * d;
          T* __restrict dkn = t.dk.data() + n * d;
          for (int x = 0; x < d; ++x) {
            dvn[x] += pn * gr[x];
            dkn[x] += dn * qr[x];
          }
        }
      }
      // dQ += scale · dS K.
      for (int r = 0; r < rows; ++r) {
        const std::int64_t idx = (pr.q_row0 + i0 + r / group) * p.hq + g * group + r % group;
        const T* __restrict ds = t.dp.data() + r * kBwdTileKeys;
        T* __restrict dq = p.dq + idx * d;
        for (int n = 0; n < nk; ++n) {
          const T coef = ds[n] * p.scale;
          if (coef == T(0)) continue;
          const T* __restrict kr = p.k + ((pr.k_row0 + j0 + n) * p.hkv + g) * d;
          for (int x = 0; x < d; ++x) dq[x] += coef * kr[x];
        }
      }
    }
    for (int n = 0; n < nk; ++n) {
      const std::int64_t row = ((pr.k_row0 + j0 + n) * p.hkv + g) * d;
      const T* __restrict dkn = t.dk.data() + n * d;
      const T* __restrict dvn = t.dv.data() + n * d;
      for (int x = 0; x < d; ++x) {
        p.dk[row + x] += dkn[x];
        p.dv[row + x] += dvn[x];
      }
    }
  }
}

}  // namespace

template <typename T>
void attention_block_backward(const AttentionBlockBwdParams<T>& p) {
  check_params(p);
  BwdTile<T> tile(kBwdTileRows * (p.hq / p.hkv), p.d);
  for (const auto& pr : p.pairs) {
    if (pr.q.count == 0 || pr.k.count == 0) continue;
    if (p.causal && pr.mask == MaskClass::skip) continue;
    for (int g = 0; g < p.hkv; ++g) run_pair_head(p, pr, g, tile);
  }
}

template <typename T>
void attention_delta(const T* o, const T* d_o, T* delta, std::int64_t rows, int hq, int d) {
  const std::int64_t n = rows * hq;
  for (std::int64_t i = 0; i < n; ++i) {
    T acc = 0;
    for (int x = 0; x < d; ++x) acc += o[i * d + x] * d_o[i * d + x];
    delta[i] = acc;
  }
}

template void attention_block_backward<float>(const AttentionBlockBwdParams<float>&);
template void attention_block_backward<double>(const AttentionBlockBwdParams<double>&);
template void attention_delta<float>(const float*, const float*, float*, std::int64_t, int, int);
template void attention_delta<double>(const double*, const double*, double*, std::int64_t, int, int);

}  // namespace rb::kernels::ref
