// Turning planned segment pairs into kernel BlockPairs.
#include "ring/plan/block_pairs.hpp"

#include <functional>
#include <map>
#include <utility>

#include "common/error.hpp"

namespace rb::ring {
std::vector<std::vector<kernels::BlockPair>> block_pairs_on(const Plan& plan, int rank, const KvSchedule& sch,
                                                            const std::vector<StepPlan>& steps,
                                                            const std::function<std::int64_t(int, int)>& key_base) {
  const auto& rp = plan.ranks.at(rank);
  const auto q_off = row_offsets(rp.attention);
  // The key segments a pair indexes, and where their rows start: per (origin rank, lane).
  struct Keys {
    SegmentList segs;
    std::vector<std::int64_t> off;
    std::int64_t base = 0;
  };
  std::map<std::pair<int, int>, Keys> keys;
  auto keys_of = [&](const PlannedPair& pp) -> const Keys& {
    auto [it, fresh] = keys.try_emplace({pp.k_rank, pp.lane});
    if (fresh) {
      Keys& k = it->second;
      k.segs = sch.gathered ? plan.member_rows(pp.k_rank) : plan.lane_segments(pp.k_rank, pp.lane);
      k.off = row_offsets(k.segs);
      k.base = key_base(pp.k_rank, pp.lane);
    }
    return it->second;
  };
  std::vector<std::vector<kernels::BlockPair>> out;
  for (const auto& st : steps) {
    std::vector<kernels::BlockPair> pairs;
    for (const auto& pp : st.pairs) {
      const Keys& k = keys_of(pp);
      if (pp.doc < 0) {
        pairs.push_back(kernels::BlockPair{rp.attention[pp.q_seg], q_off[pp.q_seg], k.segs[pp.k_seg],
                                           k.base + k.off[pp.k_seg], pp.mask});
        continue;
      }
      // A within-document piece (docs/design.md §3c): both segments cut to the document, their rows
      // offset by where the cut begins inside each segment.
      const SegmentRun q = plan.documents.clip(rp.attention[pp.q_seg], pp.doc);
      const SegmentRun kr = plan.documents.clip(k.segs[pp.k_seg], pp.doc);
      pairs.push_back(kernels::BlockPair{q.seg, q_off[pp.q_seg] + q.offset, kr.seg,
                                         k.base + k.off[pp.k_seg] + kr.offset, pp.mask});
    }
    out.push_back(std::move(pairs));
  }
  return out;
}

std::vector<std::vector<kernels::BlockPair>> step_block_pairs(const Plan& plan, int rank) {
  const KvSchedule& sch = plan.schedule;
  const std::int64_t rows = plan.ranks.at(rank).attention_tokens;  // every rank holds as many (the splits divide S)
  return block_pairs_on(plan, rank, sch, plan.ranks.at(rank).steps,
                        [&](int k_rank, int lane) { return sch.gathered ? rows * k_rank : sch.k_row(lane); });
}

std::vector<kernels::BlockPair> masked_block_pairs(const SegmentList& qs, const SegmentList& ks, bool causal,
                                                   const DocumentMask& documents) {
  const auto qo = row_offsets(qs), ko = row_offsets(ks);
  std::vector<kernels::BlockPair> out;
  for (const MaskedPair& p : documents.pairs(qs, ks, causal)) {
    if (p.doc < 0) {
      out.push_back({qs[p.q_seg], qo[p.q_seg], ks[p.k_seg], ko[p.k_seg], p.mask});
      continue;
    }
    const SegmentRun q = documents.clip(qs[p.q_seg], p.doc), k = documents.clip(ks[p.k_seg], p.doc);
    out.push_back({q.seg, qo[p.q_seg] + q.offset, k.seg, ko[p.k_seg] + k.offset, p.mask});
  }
  return out;
}

}  // namespace rb::ring
