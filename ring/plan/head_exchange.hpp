// The head exchange of Ulysses and the hybrid (docs/design.md §3b): its rules and its bytes, one
// function that both variants call with their degree (ring/plan/variant_ulysses.cpp,
// variant_hybrid.cpp), so the executors, the work matrix and the model read one description.
#pragma once

#include <cstdint>

#include "common/config.hpp"
#include "common/kv_schedule.hpp"

namespace rb::ring {

// The exchange of cfg's c ranks in groups of `degree`, each rank holding a shard of `shard_rows`
// tokens. Throws InputError naming the rule a configuration breaks: the degree divides c; Hq % U
// == 0; the K/V heads split over U (Hkv % U == 0) or are replicated (U % Hkv == 0, as prime-rl
// does), else refused. degree 1 is no exchange.
HeadExchange make_head_exchange(const Config& cfg, int degree, std::int64_t shard_rows);

// No exchange: every rank holds its shard for every head, and its own ring member (the ring
// variants).
HeadExchange no_head_exchange(const Config& cfg);

}  // namespace rb::ring
