// Turning planned segment pairs into kernel BlockPairs.
#include "ring/plan/block_pairs.hpp"

#include <map>
#include <utility>

namespace rb::ring {

std::vector<std::vector<kernels::BlockPair>> step_block_pairs(const Plan& plan, int rank) {
  const auto& rp = plan.ranks.at(rank);
  const KvSchedule& sch = plan.schedule;
  const auto q_off = row_offsets(rp.segments);
  const std::int64_t rows = rp.tokens;  // every rank holds as many rows (the split schemes divide S)
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
      k.segs = sch.gathered ? plan.ranks[pp.k_rank].segments : plan.lane_segments(pp.k_rank, pp.lane);
      k.off = row_offsets(k.segs);
      k.base = sch.gathered ? rows * pp.k_rank : sch.k_row(pp.lane);
    }
    return it->second;
  };
  std::vector<std::vector<kernels::BlockPair>> out;
  for (const auto& st : rp.steps) {
    std::vector<kernels::BlockPair> pairs;
    for (const auto& pp : st.pairs) {
      const Keys& k = keys_of(pp);
      pairs.push_back(kernels::BlockPair{rp.segments[pp.q_seg], q_off[pp.q_seg], k.segs[pp.k_seg],
                                         k.base + k.off[pp.k_seg], pp.mask});
    }
    out.push_back(std::move(pairs));
  }
  return out;
}

}  // namespace rb::ring
