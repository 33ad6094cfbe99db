// Filling the work matrix from the variant's schedule, as schedule_steps fills a plan's steps but
// without keeping the pairs; the tests hold it equal to make_plan for every variant.
#include "ring/plan/work_matrix.hpp"

#include <algorithm>
#include <numeric>

#include "common/document_mask.hpp"
#include "common/documents.hpp"
#include "common/segment.hpp"
#include "ring/plan/split_scheme.hpp"
#include "ring/plan/variant_scheme.hpp"

namespace rb::ring {
namespace {

// Unmasked pairs of every query segment against every key segment, within documents where there are
// any (DocumentMask::unmasked: per (segment, document) run, only segments that can share one).
std::int64_t pairs_between(const SegmentList& qs, const SegmentList& ks, bool causal, const DocumentMask& docs) {
  if (docs.active()) return docs.unmasked(qs, ks, causal);
  std::int64_t n = 0;
  for (const auto& q : qs)
    for (const auto& k : ks) n += unmasked_pairs(q, k, causal);
  return n;
}

}  // namespace

std::int64_t WorkMatrix::rank_unmasked(int r) const {
  const auto* row = unmasked.data() + static_cast<std::size_t>(r) * steps;
  return std::accumulate(row, row + steps, std::int64_t{0});
}

double WorkMatrix::work_imbalance() const {
  if (ranks == 0) return 1.0;
  std::int64_t mx = 0, total = 0;
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t w = rank_unmasked(r);
    mx = std::max(mx, w);
    total += w;
  }
  const double mean = static_cast<double>(total) / ranks;
  return mean > 0 ? static_cast<double>(mx) / mean : 1.0;
}

WorkMatrix make_work_matrix(const Config& cfg) {
  cfg.validate_shape();
  check_documents(cfg);
  auto scheme = make_split_scheme(cfg);
  check_divisible(*scheme, cfg.seq, cfg.cp);
  check_piece_bound(cfg);
  const DocumentMask docs = DocumentMask::of(cfg);
  const int c = cfg.cp;

  WorkMatrix m;
  m.config = cfg;
  m.ranks = c;
  m.kv_bytes_per_token = 2LL * cfg.kv_heads * cfg.head_dim * dtype_bytes(cfg.dtype);
  std::vector<SegmentList> segs(c);
  std::vector<std::int64_t> tokens(c);
  for (int r = 0; r < c; ++r) {
    segs[r] = scheme->segments(cfg.seq, c, r);
    tokens[r] = total_count(segs[r]);
  }
  m.schedule = make_variant_scheme(cfg.variant)->schedule(c, tokens[0]);
  const KvSchedule& sch = m.schedule;
  m.steps = sch.steps;
  const auto lanes = static_cast<int>(sch.lanes.size());
  // Each rank's piece per lane, once: [origin * lanes + l].
  std::vector<SegmentList> pieces;
  std::vector<std::int64_t> piece_tokens;
  if (!sch.gathered)
    for (int o = 0; o < c; ++o)
      for (const KvLane& lane : sch.lanes) {
        pieces.push_back(slice_rows(segs[o], lane.row_begin, lane.row_end));
        piece_tokens.push_back(total_count(pieces.back()));
      }
  const auto n = static_cast<std::size_t>(c) * m.steps;
  m.unmasked.assign(n, 0);
  m.recv_bytes.assign(n, 0);
  const std::int64_t all_tokens = std::accumulate(tokens.begin(), tokens.end(), std::int64_t{0});
  for (int r = 0; r < c; ++r) {
    if (sch.gathered) {
      // One step against every rank's block; it receives every block but its own.
      for (int src = 0; src < c; ++src) m.unmasked[r] += pairs_between(segs[r], segs[src], cfg.causal, docs);
      m.recv_bytes[r] = (all_tokens - tokens[r]) * m.kv_bytes_per_token;
      continue;
    }
    for (int j = 0; j < m.steps; ++j) {
      const auto i = static_cast<std::size_t>(r) * m.steps + j;
      for (int l = 0; l < lanes; ++l) {
        const auto p = static_cast<std::size_t>(sch.origin(r, l, j, c)) * lanes + l;
        m.unmasked[i] += pairs_between(segs[r], pieces[p], cfg.causal, docs);
        if (j > 0) m.recv_bytes[i] += piece_tokens[p] * m.kv_bytes_per_token;
      }
    }
  }
  return m;
}

WorkMatrix allgather_from_ring(const WorkMatrix& ring) {
  if (ring.config.variant != Variant::ring) return ring;
  WorkMatrix m;
  m.config = ring.config;
  m.config.variant = Variant::allgather;
  m.ranks = ring.ranks;
  m.steps = 1;
  m.schedule = make_variant_scheme(Variant::allgather)
                   ->schedule(ring.ranks, ring.schedule.lanes.empty() ? 0 : ring.schedule.lanes.back().row_end);
  m.kv_bytes_per_token = ring.kv_bytes_per_token;
  m.unmasked.resize(ring.ranks);
  m.recv_bytes.resize(ring.ranks);
  for (int r = 0; r < ring.ranks; ++r) {
    m.unmasked[r] = ring.rank_unmasked(r);
    const auto* row = ring.recv_bytes.data() + static_cast<std::size_t>(r) * ring.steps;
    m.recv_bytes[r] = std::accumulate(row, row + ring.steps, std::int64_t{0});
  }
  return m;
}

}  // namespace rb::ring
