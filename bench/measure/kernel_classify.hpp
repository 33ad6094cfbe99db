// Classification of GPU activity by name, as Meta's Holistic Trace Analysis does it (docs/design.md §6):
// communication `(^nccl.*)|(.*ncclKernel.*)`, memory `^Memcpy|^Memset`, compute the rest. Used for
// outside traces and for streams whose role the caller did not state.
#pragma once

#include <optional>
#include <string_view>

#include "common/timeline.hpp"

namespace rb::bench {

IntervalKind classify_kernel_name(std::string_view name);

// "compute", "comm", "memory", "comm_in_flight", "other" (the to_string names) back to the kind.
std::optional<IntervalKind> parse_interval_kind(std::string_view s);

}  // namespace rb::bench
