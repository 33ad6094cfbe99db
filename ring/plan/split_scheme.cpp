// Scheme factory and the divisibility check shared by all schemes.
#include "ring/plan/split_scheme.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "ring/plan/split_contiguous.hpp"
#include "ring/plan/split_striped.hpp"
#include "ring/plan/split_zigzag.hpp"

namespace rb::ring {

std::unique_ptr<SplitScheme> make_split_scheme(Split kind) {
  switch (kind) {
    case Split::contiguous: return std::make_unique<SplitContiguous>();
    case Split::zigzag: return std::make_unique<SplitZigzag>();
    case Split::striped: return std::make_unique<SplitStriped>();
  }
  throw Error("make_split_scheme: unknown split scheme");
}

void check_divisible(const SplitScheme& scheme, std::int64_t S, int c) {
  const std::int64_t m = scheme.divisor(c);
  if (S % m == 0) return;
  const std::int64_t below = S / m * m, above = below + m;
  const std::int64_t nearest = (below > 0 && S - below <= above - S) ? below : above;
  const std::string rule = m == c ? "S % c == 0" : "S % (2c) == 0";
  throw InputError("seq", std::to_string(S),
                   fmt::format("the {} split needs {} (c = {}, so S must be a multiple of {}); nearest valid S is {}",
                               to_string(scheme.kind()), rule, c, m, nearest));
}

}  // namespace rb::ring
