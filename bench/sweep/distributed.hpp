// The job a `ringbench run` lives in when an MPI launcher started it: the World (null otherwise),
// and the agreements that keep every process on the same path, so that bad input on any rank
// ends every rank with exit 2 instead of leaving the others waiting (docs/distributed.md). Every
// agreement of a sweep lives here: the input and options (agree_on_input, with the options derived
// in bench/cli/agreed_options.hpp), a configuration's skip, a round's outcome and the adaptive
// stop.
#pragma once

#include <optional>
#include <string>

#include "common/error.hpp"
#include "ring/transport/process_group.hpp"

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

// What one process saw of a round, for the agreement that follows it.
struct RankOutcome {
  bool threw = false;    // the configuration failed on this process with an exception
  bool induced = false;  // ... because a peer failed first (PeerFailure)
  bool fatal = false;
  int signal = 0;
  std::string reason;
};
// How a round ended, the same on every process of the job.
struct RoundResult {
  std::string failure;  // "" when the round succeeded; else the first process's own failure ("rank k: ...")
  bool fatal = false;   // a device-fatal error somewhere: the sweep stops
  int signal = 0;       // SIGINT or SIGTERM arrived somewhere: the sweep stops
  // An A/B run's driver (or a signal while waiting for it) stopped the sweep inside the round, before
  // a timed pass: the round's samples are not kept. One process only: a paced sweep is never an MPI job.
  bool cut = false;
};
// Every process brings its outcome of a round and all leave with the same result. The cause named
// is the first rank whose failure was its own, not a peer's echo. A collective.
RoundResult agree_on_round(ring::World& w, const RankOutcome& mine);

// Every process must stop sampling after the same round: true on all when any of them would stop.
// A collective of `group`; `mine` unchanged without one.
bool agree_to_stop(ring::ProcessGroup* group, bool mine);

}  // namespace rb::bench
