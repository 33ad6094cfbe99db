// Turning planned segment pairs into kernel BlockPairs.
#include "ring/block_pairs.hpp"

namespace rb::ring {

std::vector<std::vector<kernels::BlockPair>> step_block_pairs(const Plan& plan, int rank) {
  const auto& rp = plan.ranks.at(rank);
  const auto q_off = row_offsets(rp.segments);
  const std::int64_t rows = rp.tokens;  // every rank holds as many rows (the split schemes divide S)
  std::vector<std::vector<kernels::BlockPair>> out;
  for (const auto& st : rp.steps) {
    std::vector<kernels::BlockPair> pairs;
    for (const auto& pp : st.pairs) {
      const auto& ksegs = plan.ranks[pp.k_rank].segments;
      const auto k_off = row_offsets(ksegs);
      const std::int64_t base = plan.config.variant == Variant::allgather ? rows * pp.k_rank : 0;
      pairs.push_back(kernels::BlockPair{rp.segments[pp.q_seg], q_off[pp.q_seg], ksegs[pp.k_seg],
                                         base + k_off[pp.k_seg], pp.mask});
    }
    out.push_back(std::move(pairs));
  }
  return out;
}

}  // namespace rb::ring
