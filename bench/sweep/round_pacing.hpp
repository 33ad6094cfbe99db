// The pacing of an A/B run (`ringbench ab`, docs/cli.md): two builds' sweeps take turns, so that
// only one build measures at any moment and a burst on the machine lands on both alike. The turn is
// one timed pass (unit `sample`: both builds hold the configuration's executor through its round and
// alternate single passes, so their samples are one pass apart), one configuration's round (unit
// `configuration`, the default: the two builds' round k of one configuration run back to back) or
// one pass of rounds (unit `pass`: round k of every configuration; what builds before the units
// existed speak). Each sweep (`run --pace-fd N [--pace-unit U]`) talks to the driver over an
// inherited socket, one line at a time:
//   sweep → driver   `ready R`      unit pass: before pass R (1-based: round R of every configuration)
//                    `ready R I`    unit configuration: before the I-th configuration (1-based) of pass R
//                    `ready R I S`  unit sample: S = 0 before that configuration's round (its executor,
//                                   checked pass and warm-up), S >= 1 before its S-th timed pass
//                    `done`         after the last turn, before it writes results.json
//   driver → sweep   `go [FIRST]`   run the turn; FIRST (`base` or `new`) is the build that runs first in it
//                    `stop REASON`  stop now; REASON is recorded as why the sweep stopped
// A closed socket or any other line stops the sweep too, with what it was recorded as the reason;
// what was measured stays. The driver's side is bench/cli/paced_child.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::bench {

// What one turn of an A/B run is (run --pace-unit).
enum class PaceUnit { pass, configuration, sample };
const char* to_string(PaceUnit u);
// "pass", "configuration" or "sample"; anything else is an InputError naming `field`.
PaceUnit parse_pace_unit(std::string_view s, std::string_view field);

// How one build of an A/B pair is recorded (results.json's `pairing`, format 2.3.0; `unit` 2.7.0).
struct Pairing {
  std::string role;  // "base" or "new"
  std::string partner_git_sha, partner_version;
  std::string pair_id;  // the same in both builds' files
  // Which build ran first in each pass (units configuration and sample: in the pass's first turn), as
  // the driver said (null where it did not say).
  std::vector<std::string> first_by_round;
  PaceUnit unit = PaceUnit::pass;
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
  explicit RoundPacer(int fd, PaceUnit unit = PaceUnit::pass);
  ~RoundPacer();
  RoundPacer(const RoundPacer&) = delete;
  RoundPacer& operator=(const RoundPacer&) = delete;

  // Before each configuration's round `round` (1-based) in the interleaved schedule's order: where a
  // turn starts (unit pass: the pass's first round; unit configuration: every round), says it is
  // ready and waits for the driver's answer; elsewhere answers at once, to run.
  PaceAnswer before_round(int round);
  // Unit sample: before timed pass `sample` (1-based) of the round before_round let start, says it is
  // ready and waits; other units answer at once, to run.
  PaceAnswer before_sample(int sample);
  // After the last turn.
  void done();
  // For each pass, the FIRST of the first `go` received in it ("" where that `go` named none).
  const std::vector<std::string>& first_by_round() const { return first_; }

 private:
  PaceAnswer ask(const std::string& ready, int round);

  int fd_;
  PaceUnit unit_;
  int pass_ = 0;  // the pass of the last turn the driver let start
  int turn_ = 0;  // units configuration and sample: that turn's place in its pass, 1-based
  int step_ = 0;  // unit sample: 0 for the round's start, else the timed pass it waits for
  std::vector<std::string> first_;
};

}  // namespace rb::bench
