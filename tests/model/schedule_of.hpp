// The schedule a variant gives c ranks, for tests that build step tables by hand.
#pragma once

#include <cstdint>

#include "common/kv_schedule.hpp"
#include "ring/plan/variant_scheme.hpp"

namespace rb::testing {

inline KvSchedule schedule_of(Variant v, int c, std::int64_t rows = 2) {
  return ring::make_variant_scheme(v)->schedule(c, rows);
}

}  // namespace rb::testing
