// The schedule's rank arithmetic (see kv_schedule.hpp).
#include "common/kv_schedule.hpp"

namespace rb {

int KvSchedule::origin(int r, int lane, int j, int c) const {
  const std::int64_t o = (static_cast<std::int64_t>(r) - static_cast<std::int64_t>(lanes.at(lane).direction) * j) % c;
  return static_cast<int>(o < 0 ? o + c : o);
}

}  // namespace rb
