// The executors' shared preconditions (see executor_preconditions.hpp).
#include "ring/executor/executor_preconditions.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::ring {

void check_executor_preconditions(std::string_view executor, const Plan& plan, const ProcessGroup* group) {
  const int c = plan.config.cp;
  if (group && group->size() != c)
    throw Error(fmt::format("{}: {} processes for {} ranks", executor, group->size(), c));
  for (const auto& rp : plan.ranks)
    if (rp.tokens != plan.ranks.at(0).tokens)
      throw Error(fmt::format("{}: ranks must hold equal token counts", executor));
}

std::vector<int> hosted_ring_ranks(int c, const ProcessGroup* group) {
  if (group) return {group->rank()};
  std::vector<int> out;
  for (int r = 0; r < c; ++r) out.push_back(r);
  return out;
}

}  // namespace rb::ring
