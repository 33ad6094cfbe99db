// Wall-clock time as results files write it: UTC, ISO 8601 to the second ("2026-12-02T10:38:21Z"),
// so that files from nodes in different time zones sort and compare as text.
#pragma once

#include <chrono>
#include <string>

namespace rb {

std::string utc_iso8601(std::chrono::system_clock::time_point t);
inline std::string utc_now_iso8601() { return utc_iso8601(std::chrono::system_clock::now()); }

}  // namespace rb
