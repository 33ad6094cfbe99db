// The job a `ringbench run` lives in when an MPI launcher started it: the World (null otherwise),
// and the agreements that keep every process on the same path, so that bad input on any rank
// ends every rank with exit 2 instead of leaving the others waiting (docs/distributed.md).
#pragma once

#include <optional>
#include <string>

#include "common/error.hpp"
#include "ring/process_group.hpp"

namespace rb::bench {

ring::World* world();
void set_world(ring::World* w);
// True where outputs are written and progress printed: rank 0, or the only process.
bool is_primary();

// An input error every process has agreed on: rank 0 prints it, the others exit 2 silently.
class AgreedInputError : public InputError {
 public:
  using InputError::InputError;
};

// Every process calls this at the same point with its own outcome so far (`error` set if its input
// was bad) and, where it has one, a canonical JSON text of what it is about to run. Throws
// AgreedInputError on every process when any process failed or the texts differ (naming the first
// differing JSON path and both values). No-op without a world.
void agree_on_input(const std::optional<InputError>& error, const std::string& canonical_json);

}  // namespace rb::bench
