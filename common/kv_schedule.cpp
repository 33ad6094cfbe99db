// The schedule's rank arithmetic (see kv_schedule.hpp).
#include "common/kv_schedule.hpp"

namespace rb {

namespace {

int mod(std::int64_t x, int c) {
  const std::int64_t o = x % c;
  return static_cast<int>(o < 0 ? o + c : o);
}

}  // namespace

int KvSchedule::origin(int r, int lane, int j, int c) const {
  return mod(static_cast<std::int64_t>(r) - static_cast<std::int64_t>(lanes.at(lane).direction) * (j + start), c);
}

int KvSchedule::sender(int r, int lane, int c) const { return mod(r - lanes.at(lane).direction, c); }
int KvSchedule::receiver(int r, int lane, int c) const { return mod(r + lanes.at(lane).direction, c); }

}  // namespace rb
