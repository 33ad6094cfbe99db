// The pacing of an A/B run (`ringbench ab`, docs/cli.md): two builds' sweeps take turns, one pass
// of rounds at a time, so that only one build measures at any moment and a burst on the machine
// lands on both alike. Each sweep (`run --pace-fd N`) talks to the driver over an inherited
// socket, one line at a time:
//   sweep → driver   `ready R`      before pass R (1-based: round R of every configuration)
//                    `done`         after the last pass, before it writes results.json
//   driver → sweep   `go [FIRST]`   run pass R; FIRST (`base` or `new`) is the build that runs first in it
//                    `stop REASON`  stop now; REASON is recorded as why the sweep stopped
// A closed socket or any other line stops the sweep too, with what it was recorded as the reason;
// what was measured stays. The driver's side is bench/cli/paced_child.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::bench {

// How one build of an A/B pair is recorded (results.json's `pairing`, format 2.3.0).
struct Pairing {
  std::string role;  // "base" or "new"
  std::string partner_git_sha, partner_version;
  std::string pair_id;  // the same in both builds' files
  // Which build ran first in each pass, as the driver said (null where it did not say).
  std::vector<std::string> first_by_round;
};
nlohmann::json to_json(const Pairing& p);

// One line of the protocol, or why there is none.
struct PaceLine {
  enum class Kind { line, closed, too_long, interrupted };
  Kind kind = Kind::closed;
  std::string text;  // without its '\n'
};
// Blocks until a whole line arrives on fd, the peer closes it, or (when `stop_on_signal`) a signal
// asked this process to stop (interrupt.hpp). A line longer than 1024 bytes is `too_long`.
PaceLine read_pace_line(int fd, bool stop_on_signal);
// Writes `line` and '\n'; false when the peer is gone.
bool write_pace_line(int fd, std::string_view line);

// What the driver answered before a pass.
struct PaceAnswer {
  std::string stop;  // "" to run the pass; else why the sweep stops instead
  int signal = 0;    // a signal arrived while waiting: the sweep stops as interrupted by it
};

// The sweep's side. Owns the socket from construction and closes it when destroyed.
class RoundPacer {
 public:
  explicit RoundPacer(int fd);
  ~RoundPacer();
  RoundPacer(const RoundPacer&) = delete;
  RoundPacer& operator=(const RoundPacer&) = delete;

  // Before pass `round` (1-based): says it is ready and waits for the driver's answer.
  PaceAnswer before_pass(int round);
  // After the last pass.
  void done();
  // The FIRST of every `go` received, in order ("" where a `go` named none).
  const std::vector<std::string>& first_by_round() const { return first_; }

 private:
  int fd_;
  std::vector<std::string> first_;
};

}  // namespace rb::bench
