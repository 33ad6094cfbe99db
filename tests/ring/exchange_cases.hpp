// The configurations a test over every variant runs for one configuration: itself for the ring
// variants; ulysses where its all-to-all fits the heads and c; the hybrid once per group U with
// 1 < U < c that divides c and fits the heads (U = 1 is the ring and U = c ulysses:
// tests/ring/executor/test_head_exchange.cpp holds both equal bit for bit). The rules the exchange
// refuses are the bad-input tests' (tests/cli/test_bad_input_table.py); here they only choose.
#pragma once

#include <vector>

#include "common/config.hpp"
#include "common/error.hpp"
#include "ring/plan/variant_scheme.hpp"

namespace rb::ring::testing {

// Whether the variant's head exchange accepts cfg (its degree divides c and fits the heads).
inline bool exchange_fits(const Config& cfg) {
  try {
    (void)make_variant_scheme(cfg.variant)->head_exchange(cfg, 1);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

inline std::vector<Config> exchange_cases(Config cfg) {
  std::vector<Config> out;
  if (cfg.variant == Variant::hybrid) {
    for (int u = 2; u < cfg.cp; ++u) {
      cfg.ulysses_degree = u;
      if (exchange_fits(cfg)) out.push_back(cfg);
    }
    return out;
  }
  if (cfg.variant == Variant::ulysses) cfg.ulysses_degree = cfg.cp;
  if (exchange_fits(cfg)) out.push_back(cfg);
  return out;
}

}  // namespace rb::ring::testing
