// UTC timestamps for results files.
#include "common/utc_time.hpp"

#include <ctime>

#include <fmt/format.h>

namespace rb {

std::string utc_iso8601(std::chrono::system_clock::time_point t) {
  const std::time_t s = std::chrono::system_clock::to_time_t(t);
  std::tm u{};
  if (::gmtime_r(&s, &u) == nullptr) return "1970-01-01T00:00:00Z";  // beyond what time_t can say
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", u.tm_year + 1900, u.tm_mon + 1, u.tm_mday, u.tm_hour,
                     u.tm_min, u.tm_sec);
}

}  // namespace rb
