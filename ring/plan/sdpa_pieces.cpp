// A ring step as cuDNN SDPA pieces (see sdpa_pieces.hpp).
#include "ring/plan/sdpa_pieces.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "ring/plan/block_pairs.hpp"

namespace rb::ring {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The stride both segments step by; a segment of one position takes the other's.
std::int64_t common_stride(const kernels::BlockPair& p) {
  if (p.q.count <= 1) return p.k.stride;
  if (p.k.count <= 1 || p.q.stride == p.k.stride) return p.q.stride;
  throw Error(
      fmt::format("cudnn: a query segment of stride {} against a key segment of stride {} has no "
                  "rectangle of rows",
                  p.q.stride, p.k.stride));
}

// Rows [begin, end) of step 0 that earlier pieces reached, as sorted disjoint intervals.
struct Covered {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  // 0: none of [b, e) covered; 1: all of it; -1: part.
  int state(std::int64_t b, std::int64_t e) const {
    std::int64_t inside = 0;
    for (const auto& [s0, s1] : spans) inside += std::max<std::int64_t>(0, std::min(e, s1) - std::max(b, s0));
    return inside == 0 ? 0 : inside == e - b ? 1 : -1;
  }
  void add(std::int64_t b, std::int64_t e) {
    spans.emplace_back(b, e);
    std::sort(spans.begin(), spans.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> merged;
    for (const auto& s : spans)
      if (!merged.empty() && s.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, s.second);
      else
        merged.push_back(s);
    spans = std::move(merged);
  }
};

}  // namespace

std::vector<SdpaPiece> pair_pieces(const kernels::BlockPair& pair, bool causal) {
  std::vector<SdpaPiece> out;
  const std::int64_t n = pair.q.count, m = pair.k.count;
  if (n <= 0 || m <= 0) return out;
  auto rect = [&](std::int64_t r0, std::int64_t rows, std::int64_t t0, std::int64_t keys) {
    if (rows > 0 && keys > 0) out.push_back(SdpaPiece{pair.q_row0 + r0, rows, pair.k_row0 + t0, keys});
  };
  if (!causal || pair.mask == MaskClass::full) {
    rect(0, n, 0, m);
    return out;
  }
  if (pair.mask == MaskClass::skip) return out;
  const std::int64_t sigma = common_stride(pair);
  const std::int64_t delta = floor_div(pair.q.start - pair.k.start, sigma);
  // Keys before δ are visible to every row.
  rect(0, n, 0, std::clamp<std::int64_t>(delta, 0, m));
  // From (r0, t0) on, row r0 + u sees keys t0 .. t0 + u: a square, then rows that see all of them.
  const std::int64_t t0 = std::max<std::int64_t>(delta, 0), r0 = std::max<std::int64_t>(-delta, 0);
  if (t0 >= m || r0 >= n) return out;
  const std::int64_t side = std::min(n - r0, m - t0);
  out.push_back(SdpaPiece{pair.q_row0 + r0, side, pair.k_row0 + t0, side, SdpaMask::causal_top_left});
  rect(r0 + side, n - r0 - side, t0, m - t0);
  return out;
}

std::vector<SdpaStep> sdpa_steps(const Plan& plan, int rank) {
  const bool causal = plan.config.causal;
  std::vector<SdpaStep> out;
  for (const StepLaunch& sl : step_launches(plan, rank)) {
    SdpaStep st;
    st.step = sl.step;
    st.action = sl.action;
    if (sl.action != StepAction::skip)
      for (const auto& pair : sl.pairs)
        for (auto& piece : pair_pieces(pair, causal)) st.pieces.push_back(piece);
    if (sl.action == StepAction::write) {
      // A row's first piece writes it; a piece that meets rows both reached and not cannot do both,
      // and a row no piece reaches must still read (O = 0, L = -inf): then the step clears first.
      Covered covered;
      for (auto& p : st.pieces) {
        const int s = covered.state(p.q_row0, p.q_row0 + p.rows);
        if (s < 0) st.clear_first = true;
        p.writes = s == 0;
        covered.add(p.q_row0, p.q_row0 + p.rows);
      }
      if (covered.state(0, sl.sq) != 1) st.clear_first = true;
      if (st.clear_first)
        for (auto& p : st.pieces) p.writes = false;
    }
    out.push_back(std::move(st));
  }
  return out;
}

SdpaGraphKey graph_key(const SdpaPiece& p, const Config& cfg) {
  return SdpaGraphKey{p.rows, p.keys, p.mask, cfg.heads, cfg.kv_heads, cfg.head_dim};
}

std::string graph_name(const SdpaGraphKey& k) {
  return fmt::format("{}x{}{} Hq={} Hkv={} D={}", k.rows, k.keys, k.mask == SdpaMask::causal_top_left ? " causal" : "",
                     k.hq, k.hkv, k.d);
}

std::int64_t q_offset(const SdpaPiece& p, const Config& cfg) {
  return p.q_row0 * cfg.heads * static_cast<std::int64_t>(cfg.head_dim);
}
std::int64_t kv_offset(const SdpaPiece& p, const Config& cfg) {
  return p.k_row0 * cfg.kv_heads * static_cast<std::int64_t>(cfg.head_dim);
}
std::int64_t stats_offset(const SdpaPiece& p, const Config& cfg) { return p.q_row0 * cfg.heads; }

bool stats_aligned(const SdpaPiece& p, const Config& cfg) {
  return stats_offset(p, cfg) * static_cast<std::int64_t>(sizeof(float)) % kStatsAlignment == 0;
}

std::int64_t piece_pairs(const SdpaPiece& p) {
  return p.mask == SdpaMask::none ? p.rows * p.keys : p.rows * (p.rows + 1) / 2;
}

std::string sdpa_refusal(const Plan& plan) {
  const Config& cfg = plan.config;
  try {
    for (const auto& rp : plan.ranks) {
      const auto steps = step_block_pairs(plan, rp.rank);
      for (std::size_t j = 0; j < steps.size(); ++j)
        for (const auto& pair : steps[j])
          for (const auto& piece : pair_pieces(pair, cfg.causal))
            if (!stats_aligned(piece, cfg))
              return fmt::format(
                  "cudnn: rank {} step {}: the {}x{}{} piece from query row {} has its stats at float {} (row "
                  "{} x Hq {}), {} bytes off the 16-byte alignment cuDNN assumes; Hq a multiple of 4 keeps "
                  "every piece aligned",
                  rp.rank, j, piece.rows, piece.keys, piece.mask == SdpaMask::causal_top_left ? " causal" : "",
                  piece.q_row0, stats_offset(piece, cfg), piece.q_row0, cfg.heads,
                  stats_offset(piece, cfg) * 4 % kStatsAlignment);
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace rb::ring
