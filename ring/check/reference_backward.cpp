// The float64 reference of the backward, and the gradient tolerances (see reference_backward.hpp).
#include "ring/check/reference_backward.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "common/cancellation.hpp"
#include "common/error.hpp"
#include "kernels/attention_block_bwd_ref.hpp"
#include "kernels/attention_block_ref.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "ring/plan/block_pairs.hpp"

namespace rb::ring {
namespace kref = kernels::ref;
namespace {

constexpr std::int64_t kChunk = 64;       // query rows a worker takes at a time
constexpr std::int64_t kKeyBlock = 4096;  // keys per backward call when dK/dV are thrown away

// Consecutive positions as segments of stride 1.
SegmentList as_segments(std::span<const std::int64_t> pos) {
  SegmentList out;
  for (const std::int64_t p : pos) {
    if (!out.empty() && out.back().last() + 1 == p)
      ++out.back().count;
    else
      out.push_back(Segment{p, 1, 1});
  }
  return out;
}

// Runs work(w) on `workers` threads; the first exception is rethrown once all have joined.
template <typename Work>
void on_workers(int workers, Work&& work) {
  std::exception_ptr failure;
  std::mutex mu;
  std::atomic<bool> failed{false};
  auto guarded = [&](int w) {
    try {
      work(w, failed);
    } catch (...) {
      std::lock_guard lk(mu);
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  try {
    for (int w = 1; w < workers; ++w) pool.emplace_back(guarded, w);
  } catch (...) {
    failed = true;
    for (auto& t : pool) t.join();
    throw;
  }
  guarded(0);
  for (auto& t : pool) t.join();
  if (failure) {
    throw_if_cancelled();
    std::rethrow_exception(failure);
  }
}

}  // namespace

ReferenceGradients reference_gradients(const Config& cfg, std::span<const std::int64_t> q_positions,
                                       std::span<const std::int64_t> kv_positions, int threads) {
  const std::int64_t S = cfg.seq;
  const int hq = cfg.heads, hkv = cfg.kv_heads, d = cfg.head_dim;
  const SegmentList whole{Segment{0, 1, S}};
  const DocumentMask docs = DocumentMask::of(cfg);  // the plan's rule (docs/design.md §3c)
  std::vector<double> k(S * hkv * d), v(k.size());
  kref::FillParams fp{cfg.seed, kref::Tensor::k, hkv, d, cfg.dtype};
  kref::fill_inputs(k.data(), whole, fp);
  fp.tensor = kref::Tensor::v;
  kref::fill_inputs(v.data(), whole, fp);

  const std::int64_t nq = static_cast<std::int64_t>(q_positions.size());
  const std::int64_t nk = static_cast<std::int64_t>(kv_positions.size());
  const std::int64_t qw = static_cast<std::int64_t>(hq) * d, kw = static_cast<std::int64_t>(hkv) * d;
  const bool all_keys = nk == S;
  // The key rows asked for, as segments over their own compact K/V copy.
  const SegmentList ks = all_keys ? whole : as_segments(kv_positions);
  std::vector<double> k_req, v_req;
  if (!all_keys && nk > 0) {
    k_req.resize(nk * kw);
    v_req.resize(nk * kw);
    for (std::int64_t i = 0; i < nk; ++i)
      for (std::int64_t x = 0; x < kw; ++x) {
        k_req[i * kw + x] = k[kv_positions[i] * kw + x];
        v_req[i * kw + x] = v[kv_positions[i] * kw + x];
      }
  }
  // Every query row contributes to dK and dV; without them only the asked-for rows are visited.
  std::vector<std::int64_t> visit;
  if (nk > 0) {
    visit.resize(S);
    for (std::int64_t p = 0; p < S; ++p) visit[p] = p;
  } else {
    visit.assign(q_positions.begin(), q_positions.end());
  }
  const std::int64_t nv = static_cast<std::int64_t>(visit.size());
  const int workers = static_cast<int>(std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(nv / kChunk, 1)));

  ReferenceGradients out;
  out.dq.assign(nq * qw, 0.0);
  std::vector<std::vector<double>> dk_w(workers), dv_w(workers);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));

  on_workers(workers, [&](int w, const std::atomic<bool>& failed) {
    dk_w[w].assign(nk * kw, 0.0);
    dv_w[w].assign(nk * kw, 0.0);
    std::vector<double> scratch_dk, scratch_dv;
    for (std::int64_t c0 = w * kChunk; c0 < nv && !failed.load(); c0 += kChunk * workers) {
      throw_if_cancelled();
      const std::int64_t cn = std::min(kChunk, nv - c0);
      const std::span<const std::int64_t> rows(visit.data() + c0, static_cast<std::size_t>(cn));
      const SegmentList qs = as_segments(rows);
      std::vector<double> q(cn * qw), g(cn * qw), o(cn * qw), lse(cn * hq), delta(cn * hq), dq(cn * qw, 0.0);
      kref::FillParams qp{cfg.seed, kref::Tensor::q, hq, d, cfg.dtype};
      kref::fill_inputs(q.data(), qs, qp);
      qp.tensor = kref::Tensor::d_o;
      kref::fill_inputs(g.data(), qs, qp);
      const auto fwd_pairs = masked_block_pairs(qs, whole, cfg.causal, docs);
      kref::AttentionBlockParams<double> ap;
      ap.q = q.data();
      ap.k = k.data();
      ap.v = v.data();
      ap.o = o.data();
      ap.lse = lse.data();
      ap.sq = cn;
      ap.sk = S;
      ap.hq = hq;
      ap.hkv = hkv;
      ap.d = d;
      ap.causal = cfg.causal;
      ap.scale = scale;
      ap.pairs = fwd_pairs;
      ap.cancel = &cancellation_flag();
      kref::attention_block(ap);
      kref::attention_delta(o.data(), g.data(), delta.data(), cn, hq, d);

      kref::AttentionBlockBwdParams<double> bp;
      bp.q = q.data();
      bp.d_o = g.data();
      bp.lse = lse.data();
      bp.delta = delta.data();
      bp.dq = dq.data();
      bp.sq = cn;
      bp.hq = hq;
      bp.hkv = hkv;
      bp.d = d;
      bp.causal = cfg.causal;
      bp.scale = scale;
      bp.cancel = &cancellation_flag();
      // The rows' dQ take every key; with all keys asked for, the same call gives dK and dV.
      const auto first = std::lower_bound(q_positions.begin(), q_positions.end(), rows.front());
      const bool wants_dq = first != q_positions.end() && *first <= rows.back();
      if (all_keys && nk > 0) {
        bp.k = k.data();
        bp.v = v.data();
        bp.dk = dk_w[w].data();
        bp.dv = dv_w[w].data();
        bp.sk = S;
        const auto pairs = masked_block_pairs(qs, whole, cfg.causal, docs);
        bp.pairs = pairs;
        kref::attention_block_backward(bp);
      } else {
        if (wants_dq)
          for (std::int64_t k0 = 0; k0 < S; k0 += kKeyBlock) {
            const std::int64_t kn = std::min(kKeyBlock, S - k0);
            scratch_dk.assign(kn * kw, 0.0);
            scratch_dv.assign(kn * kw, 0.0);
            const SegmentList block{Segment{k0, 1, kn}};
            std::vector<kernels::BlockPair> pairs = masked_block_pairs(qs, block, cfg.causal, docs);
            bp.k = k.data() + k0 * kw;
            bp.v = v.data() + k0 * kw;
            bp.dk = scratch_dk.data();
            bp.dv = scratch_dv.data();
            bp.sk = kn;
            bp.pairs = pairs;
            kref::attention_block_backward(bp);
          }
        if (nk > 0) {
          std::vector<double> dq_scratch(cn * qw, 0.0);
          const auto pairs = masked_block_pairs(qs, ks, cfg.causal, docs);
          bp.dq = dq_scratch.data();
          bp.k = k_req.data();
          bp.v = v_req.data();
          bp.dk = dk_w[w].data();
          bp.dv = dv_w[w].data();
          bp.sk = nk;
          bp.pairs = pairs;
          kref::attention_block_backward(bp);
        }
      }
      if (!wants_dq) continue;
      for (std::int64_t i = 0; i < cn; ++i) {
        const auto at = std::lower_bound(q_positions.begin(), q_positions.end(), rows[static_cast<std::size_t>(i)]);
        if (at == q_positions.end() || *at != rows[static_cast<std::size_t>(i)]) continue;
        const std::int64_t row = at - q_positions.begin();
        std::copy(dq.begin() + i * qw, dq.begin() + (i + 1) * qw, out.dq.begin() + row * qw);
      }
    }
  });
  out.dk.assign(nk * kw, 0.0);
  out.dv.assign(nk * kw, 0.0);
  for (int w = 0; w < workers; ++w)
    for (std::int64_t i = 0; i < nk * kw; ++i) {
      out.dk[i] += dk_w[w][i];
      out.dv[i] += dv_w[w][i];
    }
  return out;
}

std::optional<std::string> key_gradients_unchecked(const Config& cfg, const CheckRows& rows) {
  if (rows.all_rows) return std::nullopt;
  const double s = static_cast<double>(cfg.seq);
  const double work = s * s * cfg.heads * cfg.head_dim / (cfg.causal ? 2.0 : 1.0);
  if (work <= kKeyGradientCheckWork) return std::nullopt;
  return fmt::format(
      "dK and dV need a float64 forward over all {} rows ({:.3g} multiply-adds, over the {:.3g} "
      "a check may take); dQ is checked on the sampled rows",
      cfg.seq, work, kKeyGradientCheckWork);
}

std::pair<double, std::string> gradient_tolerance_for(const Config& cfg) {
  // A gradient element sums, over the query rows that see its key (dK, dV) or the keys its row sees
  // (dQ), terms P·(dP − Δ)·x with |dP|, |Δ| <= D·|dO||V| and |x| <= 1. For these inputs (uniform in
  // [-1, 1), scores of standard deviation 1/3) the weights are near uniform, so a key's column sum
  // of P is about ln S and dP, Δ sum D random products: about sqrt(D). The errors of the forward's
  // arithmetic (tolerance_for) enter every term through P and Δ, hence the factor
  // G = 2·(ln S + 2)·(sqrt(D) + 4) over the forward's bound.
  const double n = static_cast<double>(cfg.seq), d = static_cast<double>(cfg.head_dim);
  const double g = 2.0 * (std::log(n) + 2.0) * (std::sqrt(d) + 4.0);
  switch (cfg.dtype) {
    case DType::float64:
      // Same inputs and formulas; only the order of sums of up to S terms of size up to G differs.
      return {1e-9, "float64: identical inputs, only summation order differs; bound 1e-9 >> S*G*u"};
    case DType::float32: {
      const auto [fwd, why] = tolerance_for(cfg);
      return {g * fwd, fmt::format("float32: G*({}), G = 2*(ln S + 2)*(sqrt(D) + 4)", why)};
    }
    case DType::bfloat16: {
      // cuDNN's backward rounds P and dS to bf16 for its tensor-core products (2^-8 relative each)
      // on top of the forward's bound; the reverse design also rounds the partial dK/dV to bf16 at
      // each of its c - 1 hops, errors of random sign: sqrt(c - 1)·2^-8 of a gradient of size ~G.
      const auto [fwd, why] = tolerance_for(cfg);
      double tol = g * (fwd + std::ldexp(1.0, -7));
      std::string basis = fmt::format(
          "bfloat16: G*(forward bound + 2^-7 for P and dS in bf16), G = 2*(ln S + "
          "2)*(sqrt(D) + 4); not yet held to a GPU run");
      if (cfg.dkv == Dkv::reverse && cfg.cp > 1) {
        tol += g * std::sqrt(static_cast<double>(cfg.cp - 1)) * std::ldexp(1.0, -8);
        basis += "; plus sqrt(c-1)*2^-8*G for dK/dV carried in bf16 (reverse)";
      }
      return {tol, basis};
    }
  }
  return {0.0, ""};
}

}  // namespace rb::ring
