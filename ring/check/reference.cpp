// The float64 reference, row selection and the comparison with its derived tolerance.
#include "ring/check/reference.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "common/cancellation.hpp"
#include "kernels/attention_block_ref.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "ring/plan/block_pairs.hpp"

namespace rb::ring {
namespace kref = kernels::ref;

std::vector<double> reference_rows(const Config& cfg, std::span<const std::int64_t> positions, int threads) {
  const std::int64_t S = cfg.seq;
  const SegmentList whole{Segment{0, 1, S}};
  const DocumentMask docs = DocumentMask::of(cfg);  // the plan's rule (docs/design.md §3c)
  std::vector<double> k(S * cfg.kv_heads * cfg.head_dim), v(k.size());
  kref::FillParams fp{cfg.seed, kref::Tensor::k, cfg.kv_heads, cfg.head_dim, cfg.dtype};
  kref::fill_inputs(k.data(), whole, fp);
  fp.tensor = kref::Tensor::v;
  kref::fill_inputs(v.data(), whole, fp);

  const std::int64_t n = static_cast<std::int64_t>(positions.size());
  const std::int64_t width = static_cast<std::int64_t>(cfg.heads) * cfg.head_dim;
  std::vector<double> out(n * width);
  const int workers = static_cast<int>(std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(n, 1)));

  // An exception must not leave a worker's thread (that would terminate the process): the first
  // one is kept, the others stop at their next chunk, and it is rethrown once all have joined.
  std::exception_ptr failure;
  std::mutex failure_mu;
  std::atomic<bool> failed{false};

  // Worker w takes every workers-th chunk of consecutive positions, each chunk becoming segments.
  auto chunks = [&](int w) {
    constexpr std::int64_t kChunk = 64;
    for (std::int64_t c0 = w * kChunk; c0 < n && !failed.load(); c0 += kChunk * workers) {
      throw_if_cancelled();
      const std::int64_t cn = std::min(kChunk, n - c0);
      SegmentList qs;
      for (std::int64_t i = 0; i < cn; ++i) {
        const std::int64_t p = positions[c0 + i];
        if (!qs.empty() && qs.back().last() + 1 == p)
          ++qs.back().count;
        else
          qs.push_back(Segment{p, 1, 1});
      }
      std::vector<double> q(cn * width), lse(cn * cfg.heads);
      kref::FillParams qp{cfg.seed, kref::Tensor::q, cfg.heads, cfg.head_dim, cfg.dtype};
      kref::fill_inputs(q.data(), qs, qp);
      const auto pairs = masked_block_pairs(qs, whole, cfg.causal, docs);
      kref::AttentionBlockParams<double> ap;
      ap.q = q.data();
      ap.k = k.data();
      ap.v = v.data();
      ap.o = out.data() + c0 * width;
      ap.lse = lse.data();
      ap.sq = cn;
      ap.sk = S;
      ap.hq = cfg.heads;
      ap.hkv = cfg.kv_heads;
      ap.d = cfg.head_dim;
      ap.causal = cfg.causal;
      ap.scale = 1.0 / std::sqrt(static_cast<double>(cfg.head_dim));
      ap.pairs = pairs;
      ap.cancel = &cancellation_flag();
      kref::attention_block(ap);
    }
  };
  auto work = [&](int w) {
    try {
      chunks(w);
    } catch (...) {
      std::lock_guard lk(failure_mu);
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> pool;
  try {
    for (int w = 1; w < workers; ++w) pool.emplace_back(work, w);
  } catch (...) {
    failed = true;  // no more threads to be had: the ones started stop, and this one reports it
    for (auto& t : pool) t.join();
    throw;
  }
  work(0);
  for (auto& t : pool) t.join();
  if (failure) {
    throw_if_cancelled();  // a kernel stopped by the cancellation: its reason, not the kernel's words
    std::rethrow_exception(failure);
  }
  return out;
}

namespace {

// Under documents (docs/design.md §3c) the rows are the real tokens only: padding attends to nothing
// and is no output. Above the limit the sample holds the first and last token of every document and
// every segment (the boundaries, where a wrong mask shows), drawn down to half the sample with the
// run seed when there are more (a doc-zigzag rank has two segments per document), and the rest
// drawn among the real tokens.
CheckRows document_check_rows(const Plan& plan, std::int64_t full_limit, std::int64_t sample) {
  const DocumentMask& docs = plan.documents;
  std::int64_t real = 0;
  for (int d = 0; d < docs.count(); ++d) real += docs.end(d) - docs.begin(d);
  CheckRows rows;
  auto& pos = rows.positions;
  if (real <= full_limit || sample >= real) {
    rows.all_rows = true;
    pos.reserve(static_cast<std::size_t>(real));
    for (int d = 0; d < docs.count(); ++d)
      for (std::int64_t p = docs.begin(d); p < docs.end(d); ++p) pos.push_back(p);
    return rows;
  }
  std::vector<std::int64_t> edges;
  for (int d = 0; d < docs.count(); ++d) {
    edges.push_back(docs.begin(d));
    edges.push_back(docs.end(d) - 1);
  }
  for (const auto& rp : plan.ranks)
    for (const auto& s : rp.segments)
      for (const std::int64_t p : {s.first(), s.last()})
        if (s.count > 0 && docs.holds(p)) edges.push_back(p);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::mt19937_64 gen(plan.config.seed);
  if (static_cast<std::int64_t>(edges.size()) > sample / 2) {
    std::shuffle(edges.begin(), edges.end(), gen);
    edges.resize(static_cast<std::size_t>(sample / 2));
    std::sort(edges.begin(), edges.end());
  }
  pos = std::move(edges);
  // The k-th real token, k uniform in [0, real): its document found by the prefix sums of lengths.
  std::vector<std::int64_t> before(static_cast<std::size_t>(docs.count()) + 1, 0);
  for (int d = 0; d < docs.count(); ++d) before[d + 1] = before[d] + docs.end(d) - docs.begin(d);
  std::uniform_int_distribution<std::int64_t> dist(0, real - 1);
  while (static_cast<std::int64_t>(pos.size()) < sample) {
    const std::int64_t k = dist(gen);
    const auto d = std::upper_bound(before.begin(), before.end(), k) - before.begin() - 1;
    const std::int64_t p = docs.begin(static_cast<int>(d)) + (k - before[d]);
    auto it = std::lower_bound(pos.begin(), pos.end(), p);
    if (it == pos.end() || *it != p) pos.insert(it, p);
  }
  return rows;
}

}  // namespace

CheckRows check_rows(const Plan& plan, std::int64_t full_limit, std::int64_t sample) {
  if (plan.documents.active()) return document_check_rows(plan, full_limit, sample);
  const std::int64_t S = plan.config.seq;
  CheckRows rows;
  if (S <= full_limit || sample >= S) {
    rows.all_rows = true;
    rows.positions.resize(S);
    for (std::int64_t p = 0; p < S; ++p) rows.positions[p] = p;
    return rows;
  }
  auto& pos = rows.positions;
  pos.push_back(0);
  pos.push_back(S - 1);
  for (const auto& rp : plan.ranks)
    for (const auto& s : rp.segments) {
      pos.push_back(s.first());
      pos.push_back(s.last());
    }
  std::mt19937_64 gen(plan.config.seed);
  std::uniform_int_distribution<std::int64_t> dist(0, S - 1);
  std::sort(pos.begin(), pos.end());
  pos.erase(std::unique(pos.begin(), pos.end()), pos.end());
  while (static_cast<std::int64_t>(pos.size()) < sample) {
    const std::int64_t p = dist(gen);
    auto it = std::lower_bound(pos.begin(), pos.end(), p);
    if (it == pos.end() || *it != p) pos.insert(it, p);
  }
  return rows;
}

std::pair<double, std::string> tolerance_for(const Config& cfg) {
  const double n = static_cast<double>(cfg.seq);
  const double d = static_cast<double>(cfg.head_dim);
  switch (cfg.dtype) {
    case DType::float64:
      // Same inputs as the reference and the same formula; only the order of the sums differs
      // (blocks, merges). Rounding errors of u = 2^-53 grow at most like n*u; 1e-10 leaves a
      // margin of ~1e4 over that for S up to 1e2..1e3 and ~1e2 at S = 1e5 while still catching a
      // single wrong key (which moves O by ~1/S >= 1e-7 for S <= 1e7).
      return {1e-10, "float64: identical inputs, only summation order differs; bound 1e-10 >> n*u"};
    case DType::float32: {
      // fp32 arithmetic (u = 2^-24) with the reference in float64 on the same rounded inputs.
      // Probabilistic rounding analysis (Higham & Mary 2019): a sum of n terms errs by about
      // lambda*sqrt(n)*u, lambda ~ 1 with overwhelming probability below 8. Scores sum D products
      // of magnitude <= 1 and are scaled by 1/sqrt(D), so their error is ~sqrt(D)*u/sqrt(D)*sqrt(D);
      // a score error e moves O by at most 2e (softmax is 1-Lipschitz per weight, |V| <= 1); the
      // P.V sum over n keys adds sqrt(n)*u; merges add a few u. Hence tol = 8*u*(2*sqrt(D) + sqrt(S) + 8).
      const double u = std::ldexp(1.0, -24);
      const double tol = 8.0 * u * (2.0 * std::sqrt(d) + std::sqrt(n) + 8.0);
      return {tol, fmt::format("float32: 8*u*(2*sqrt(D)+sqrt(S)+8), u=2^-24 (probabilistic rounding bound)")};
    }
    case DType::bfloat16: {
      // bf16 inputs are exact in the reference (it reads the same rounded values), and Q.K^T is
      // exact per product and summed in fp32 (covered by the float32 terms). The one bf16 rounding
      // is P -> bf16 for the tensor-core P.V product (kernels/attention_block.cu); the row sum l is
      // taken from the unrounded fp32 P. With p~_i = p_i (1 + d_i), |d_i| <= u_bf16 = 2^-8 (nearest
      // even) and |v| <= 1, the error of O = sum p~_i v_i / l is |sum p_i d_i v_i| / l <= 2^-8 * sum
      // p_i / l = 2^-8: a deterministic bound, not a probabilistic one. Merges are convex
      // combinations (weights sum to 1), so the bound survives them; their own fp32 error is in the
      // float32 terms.
      const double u = std::ldexp(1.0, -24);
      const double fp32 = 8.0 * u * (2.0 * std::sqrt(d) + std::sqrt(n) + 8.0);
      // cuDNN's kernel (ring/plan/sdpa_pieces.hpp) rounds P the same way, and stores each piece's O in
      // bf16 before the fp32 fold: |O| <= 1, so that rounding errs by at most 2^-8 per piece, and
      // the folds, convex combinations, keep the bound. Both roundings together: 2^-7.
      if (cfg.kernel == Kernel::cudnn)
        return {std::ldexp(1.0, -7) + fp32,
                "bfloat16, cuDNN: P rounded to bf16 for P.V and each piece's O stored in bf16 (2^-8 each, "
                "deterministic) plus the float32 bound"};
      return {std::ldexp(1.0, -8) + fp32,
              "bfloat16: P rounded to bf16 for P.V (2^-8, deterministic) plus the float32 bound"};
    }
  }
  return {0.0, ""};
}

Correctness compare_to_reference(std::span<const double> out, std::span<const double> ref, const Config& cfg,
                                 const CheckRows& rows) {
  auto [tol, basis] = tolerance_for(cfg);
  return compare_within(out, ref, tol, std::move(basis), rows);
}

Correctness compare_within(std::span<const double> out, std::span<const double> ref, double tolerance,
                           std::string tolerance_basis, const CheckRows& rows) {
  Correctness c;
  c.rows_checked = static_cast<std::int64_t>(rows.positions.size());
  c.all_rows = rows.all_rows;
  c.tolerance = tolerance;
  c.tolerance_basis = std::move(tolerance_basis);
  double diff2 = 0, ref2 = 0;
  const std::size_t n = std::min(out.size(), ref.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::abs(out[i] - ref[i]);
    if (!(e <= c.tolerance)) ++c.over_tolerance;  // NaN counts as over
    if (std::isnan(e))
      c.max_abs_err = e;
    else if (!std::isnan(c.max_abs_err))
      c.max_abs_err = std::max(c.max_abs_err, e);
    diff2 += (out[i] - ref[i]) * (out[i] - ref[i]);
    ref2 += ref[i] * ref[i];
  }
  if (out.size() != ref.size()) c.over_tolerance += static_cast<std::int64_t>(std::max(out.size(), ref.size()) - n);
  c.rel_l2_err = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return c;
}

}  // namespace rb::ring
