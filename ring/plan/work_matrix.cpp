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

// Unmasked pairs of member g's rows against the keys of (src, lane), within documents where there
// are any (DocumentMask::unmasked: per (segment, document) run, through the indexes kept in `k`).
std::int64_t pairs_between(const std::vector<SegmentList>& segs, int g, const StepKeys& k, int src, int lane,
                           bool causal, const DocumentMask& docs) {
  const SegmentList& ks = k.keys(src, lane);
  if (docs.active()) return docs.unmasked(segs[g], k.row_index(g), ks, k.key_index(src, lane), causal);
  std::int64_t n = 0;
  for (const auto& q : segs[g])
    for (const auto& key : ks) n += unmasked_pairs(q, key, causal);
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
  check_work_bound(cfg);
  const DocumentMask docs = DocumentMask::of(cfg);
  const int c = cfg.cp;
  const auto variant = make_variant_scheme(cfg.variant);

  WorkMatrix m;
  m.config = cfg;
  m.ranks = c;
  std::vector<SegmentList> shards(c);
  for (int r = 0; r < c; ++r) shards[r] = scheme->segments(cfg.seq, c, r);
  // The schedule's members attend over their groups' rows, as make_plan lays them out.
  m.exchange = variant->head_exchange(cfg, total_count(shards[0]));
  const HeadExchange& x = m.exchange;
  const int members = x.groups;
  std::vector<SegmentList> segs(members);
  std::vector<std::int64_t> tokens(members);
  for (int g = 0; g < members; ++g) {
    for (int u = 0; u < x.degree; ++u) {
      const SegmentList& shard = shards[x.rank_of(g, u)];
      segs[g].insert(segs[g].end(), shard.begin(), shard.end());
    }
    tokens[g] = total_count(segs[g]);
  }
  m.kv_bytes_per_token = 2LL * x.kv_heads * cfg.head_dim * dtype_bytes(cfg.dtype);
  m.schedule = variant->schedule(members, tokens[0]);
  const KvSchedule& sch = m.schedule;
  m.steps = sch.steps;
  const auto lanes = static_cast<int>(sch.lanes.size());
  // Each member's piece per lane and the documents of every list, once.
  const StepKeys keys(sch, segs, docs);
  const auto n = static_cast<std::size_t>(c) * m.steps;
  m.unmasked.assign(n, 0);
  m.recv_bytes.assign(n, 0);
  const std::int64_t all_tokens = std::accumulate(tokens.begin(), tokens.end(), std::int64_t{0});
  for (int g = 0; g < members; ++g) {
    // The group's first rank, counted; its members copy it (they run the same steps on other heads).
    const auto first = static_cast<std::size_t>(x.rank_of(g, 0)) * m.steps;
    if (sch.gathered) {
      // One step against every member's block; it receives every block but its own.
      for (int src = 0; src < members; ++src)
        m.unmasked[first] += pairs_between(segs, g, keys, src, 0, cfg.causal, docs);
      m.recv_bytes[first] = (all_tokens - tokens[g]) * m.kv_bytes_per_token;
    } else {
      for (int j = 0; j < m.steps; ++j) {
        const auto i = first + j;
        for (int l = 0; l < lanes; ++l) {
          const int src = sch.origin(g, l, j, members);
          m.unmasked[i] += pairs_between(segs, g, keys, src, l, cfg.causal, docs);
          if (j > 0) m.recv_bytes[i] += keys.tokens(src, l) * m.kv_bytes_per_token;
        }
      }
    }
    for (int u = 1; u < x.degree; ++u) {
      const auto to = static_cast<std::size_t>(x.rank_of(g, u)) * m.steps;
      std::copy_n(m.unmasked.begin() + first, m.steps, m.unmasked.begin() + to);
      std::copy_n(m.recv_bytes.begin() + first, m.steps, m.recv_bytes.begin() + to);
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
  m.exchange = ring.exchange;
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
