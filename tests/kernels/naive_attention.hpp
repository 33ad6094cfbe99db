// Textbook attention for tests: softmax(q.k / sqrt(D)) . v with an explicit max and sum per row,
// no tiling and no online rescaling, over an explicit list of key positions.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rb::test {

// q: (nq, Hq, D) at positions qpos; k, v: (nk, Hkv, D) at positions kpos. Returns O (nq, Hq, D) and
// writes LSE (nq, Hq); rows with no visible key give O = 0 and LSE = -inf.
inline std::vector<double> naive_attention(const std::vector<double>& q, const std::vector<std::int64_t>& qpos,
                                           const std::vector<double>& k, const std::vector<double>& v,
                                           const std::vector<std::int64_t>& kpos, int hq, int hkv, int d, bool causal,
                                           std::vector<double>* lse = nullptr) {
  const std::size_t nq = qpos.size(), nk = kpos.size();
  std::vector<double> o(nq * hq * d, 0.0);
  if (lse) lse->assign(nq * hq, -std::numeric_limits<double>::infinity());
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (std::size_t i = 0; i < nq; ++i)
    for (int h = 0; h < hq; ++h) {
      const int g = h / (hq / hkv);
      std::vector<double> s(nk, -std::numeric_limits<double>::infinity());
      double mx = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < nk; ++j) {
        if (causal && kpos[j] > qpos[i]) continue;
        double dot = 0;
        for (int x = 0; x < d; ++x) dot += q[(i * hq + h) * d + x] * k[(j * hkv + g) * d + x];
        s[j] = dot * scale;
        mx = std::max(mx, s[j]);
      }
      if (mx == -std::numeric_limits<double>::infinity()) continue;
      double sum = 0;
      for (std::size_t j = 0; j < nk; ++j) sum += std::exp(s[j] - mx);
      for (std::size_t j = 0; j < nk; ++j) {
        const double p = std::exp(s[j] - mx) / sum;
        for (int x = 0; x < d; ++x) o[(i * hq + h) * d + x] += p * v[(j * hkv + g) * d + x];
      }
      if (lse) (*lse)[i * hq + h] = mx + std::log(sum);
    }
  return o;
}

// Textbook gradients of naive_attention for an output gradient dO (nq, Hq, D): from the loss
// Σ O∘dO, with P the softmax over visible keys, dV = P^T dO, dP = dO V^T, Δ_i = Σ_t P_it dP_it,
// dS = P ∘ (dP − Δ), dQ = scale·dS K, dK = scale·dS^T Q. Fills dq (nq, Hq, D), dk and dv (nk, Hkv, D).
inline void naive_attention_backward(const std::vector<double>& q, const std::vector<std::int64_t>& qpos,
                                     const std::vector<double>& k, const std::vector<double>& v,
                                     const std::vector<std::int64_t>& kpos, const std::vector<double>& d_o, int hq,
                                     int hkv, int d, bool causal, std::vector<double>& dq, std::vector<double>& dk,
                                     std::vector<double>& dv) {
  const std::size_t nq = qpos.size(), nk = kpos.size();
  dq.assign(nq * hq * d, 0.0);
  dk.assign(nk * hkv * d, 0.0);
  dv.assign(nk * hkv * d, 0.0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (std::size_t i = 0; i < nq; ++i)
    for (int h = 0; h < hq; ++h) {
      const int g = h / (hq / hkv);
      std::vector<double> s(nk, -std::numeric_limits<double>::infinity()), pr(nk, 0.0), dp(nk, 0.0);
      double mx = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < nk; ++j) {
        if (causal && kpos[j] > qpos[i]) continue;
        double dot = 0;
        for (int x = 0; x < d; ++x) dot += q[(i * hq + h) * d + x] * k[(j * hkv + g) * d + x];
        s[j] = dot * scale;
        mx = std::max(mx, s[j]);
      }
      if (mx == -std::numeric_limits<double>::infinity()) continue;
      double sum = 0;
      for (std::size_t j = 0; j < nk; ++j) sum += std::exp(s[j] - mx);
      double delta = 0;
      for (std::size_t j = 0; j < nk; ++j) {
        pr[j] = std::exp(s[j] - mx) / sum;
        for (int x = 0; x < d; ++x) dp[j] += d_o[(i * hq + h) * d + x] * v[(j * hkv + g) * d + x];
        delta += pr[j] * dp[j];
      }
      for (std::size_t j = 0; j < nk; ++j) {
        if (pr[j] == 0) continue;
        const double ds = pr[j] * (dp[j] - delta);
        for (int x = 0; x < d; ++x) {
          dv[(j * hkv + g) * d + x] += pr[j] * d_o[(i * hq + h) * d + x];
          dq[(i * hq + h) * d + x] += scale * ds * k[(j * hkv + g) * d + x];
          dk[(j * hkv + g) * d + x] += scale * ds * q[(i * hq + h) * d + x];
        }
      }
    }
}

}  // namespace rb::test
