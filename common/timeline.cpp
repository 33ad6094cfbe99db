// Names of interval kinds.
#include "common/timeline.hpp"

namespace rb {

std::string_view to_string(IntervalKind k) {
  switch (k) {
    case IntervalKind::compute: return "compute";
    case IntervalKind::comm: return "comm";
    case IntervalKind::memory: return "memory";
    case IntervalKind::comm_in_flight: return "comm_in_flight";
    case IntervalKind::other: return "other";
  }
  return "?";
}

}  // namespace rb
