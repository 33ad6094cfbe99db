// Executor::output_rows for every backend: the rows at global positions, (n, Hq, D) in double,
// read from the accumulated output of whichever rank holds each. Rows another process hosts are
// left zero and the process group's sum fills them in: each row is non-zero on its owner only, so
// the sum is exact and every process gets every row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "ring/plan/plan.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::ring {

// Rows of any per-rank tensor of `width` elements a row, local row `row` sitting at row slot(row)
// of rank_output(r) (a gradient of K or V sits in its lane's piece of the own block); as below.
template <typename RankOutput, typename Slot>
std::vector<double> gather_rank_rows(const Plan& plan, std::span<const std::int64_t> positions, ProcessGroup* group,
                                     std::int64_t width, RankOutput rank_output, Slot slot) {
  const Config& cfg = plan.config;
  const auto where = locate_rows(plan, positions);
  std::vector<double> out(positions.size() * width, 0.0);
  using Ptr = decltype(rank_output(0));
  std::vector<Ptr> source(static_cast<std::size_t>(cfg.cp), nullptr);
  std::vector<bool> asked(static_cast<std::size_t>(cfg.cp), false);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const auto [r, row] = where[i];
    const auto at = static_cast<std::size_t>(r);
    if (!asked[at]) {
      source[at] = rank_output(r);
      asked[at] = true;
    }
    if (source[at] == nullptr) continue;  // another process's row: its owner adds it
    const auto* src = source[at] + slot(row) * width;
    std::copy(src, src + width, out.begin() + static_cast<std::int64_t>(i) * width);
  }
  if (group) group->sum(out);
  return out;
}

// `rank_output(r)` returns rank r's accumulated output, (S/c, Hq, D) host memory, or nullptr where
// this process does not host r. It is called once per rank that holds a requested row, in order
// of first need. `group` is null when this process hosts every rank.
template <typename RankOutput>
std::vector<double> gather_output_rows(const Plan& plan, std::span<const std::int64_t> positions, ProcessGroup* group,
                                       RankOutput rank_output) {
  const Config& cfg = plan.config;
  const std::int64_t width = static_cast<std::int64_t>(cfg.heads) * cfg.head_dim;
  return gather_rank_rows(plan, positions, group, width, rank_output, [](std::int64_t row) { return row; });
}

}  // namespace rb::ring
