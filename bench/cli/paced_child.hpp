// One build of an A/B run as its driver (`ringbench ab`) sees it: a `run` child process whose fd 3
// is its end of a pacing socket (bench/sweep/round_pacing.hpp), with stdin from /dev/null and
// stdout and stderr into a log file. The driver alternates the children by the lines they trade.
// Every wait for a child has a deadline: a child that neither answers nor exits in time is ended
// (SIGTERM, then SIGKILL), so no build can hang the driver, nor outlive it once it is done. Each
// child leads a process group of its own, which the driver signals whole (a build's own children
// included) and which a GroupGuard ends when the driver dies first.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "bench/sweep/round_pacing.hpp"

namespace rb::bench {

// How long a child that was asked to end (SIGTERM: a `run` stops as interrupted and writes what it
// measured) has before it is killed.
inline constexpr std::chrono::seconds kEndGrace{30};

// How long a guard (GroupGuard) waits for a build to exit once the driver died: first on its own
// (it sees its pacing socket closed and writes its results), then after SIGTERM; then the group is
// killed.
inline constexpr std::chrono::milliseconds kGuardLeaderGrace{30000};

// A child's process group outlives a driver that dies (a second SIGTERM or SIGINT kills it the
// usual way, before it can end its children; SIGKILL too). A guard is a process of its own, forked
// by the driver, that waits on a pipe only the driver holds: when the driver dies without releasing
// it, the pipe closes, and the guard waits for the build to exit (kGuardLeaderGrace), sends the
// group SIGTERM, waits again, and kills what is left of it: a build's own children too. It ignores
// SIGINT, SIGTERM and SIGHUP, which a terminal sends the driver's whole group.
class GroupGuard {
 public:
  GroupGuard() = default;
  // Starts the guard of process group `group`. Throws rb::Error when it cannot be started.
  explicit GroupGuard(pid_t group);
  ~GroupGuard() { release(); }
  GroupGuard(GroupGuard&& other) noexcept;
  GroupGuard& operator=(GroupGuard&& other) noexcept;
  GroupGuard(const GroupGuard&) = delete;
  GroupGuard& operator=(const GroupGuard&) = delete;

  // The driver has ended the group itself: the guard exits without a signal, and is waited for.
  void release();

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
};

// What the driver heard from a child: a line, or why there is none.
struct Heard {
  enum class Kind { line, closed, too_long, interrupted, timed_out };
  Kind kind = Kind::closed;
  std::string text;  // without its '\n'
};

class PacedChild {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts argv (argv[0] the binary's path). Throws rb::Error when it cannot be started.
  PacedChild(std::string role, const std::vector<std::string>& argv, const std::filesystem::path& log);
  // A child still running (the driver is unwinding an error) is asked to stop as if interrupted,
  // so it writes what it measured, and is waited for, at most kEndGrace before it is killed.
  ~PacedChild();
  PacedChild(const PacedChild&) = delete;
  PacedChild& operator=(const PacedChild&) = delete;

  const std::string& role() const { return role_; }
  const std::filesystem::path& log() const { return log_; }
  // Its next line, waiting until `deadline` (none: as long as its turn takes) and, when
  // `stop_on_signal`, no longer than SIGINT or SIGTERM to the driver (interrupt.hpp).
  Heard next(std::optional<Clock::time_point> deadline, bool stop_on_signal);
  // False when it is gone.
  bool send(std::string_view line);
  // Closes the socket and waits for it to exit, at most `grace`; then ends it (end()). Its status as
  // a shell gives it (128 + N for signal N).
  int wait(std::chrono::seconds grace);
  // Asks it to end now (SIGTERM), waits at most kEndGrace, then kills it; `why` says what it was
  // ended for, in how().
  int end(const std::string& why);
  bool running() const { return pid_ > 0; }
  // How it ended, once waited for: "exit 1", "killed by signal 9 (Killed)", or that the driver ended
  // it and why.
  const std::string& how() const { return how_; }

 private:
  // Waits for its exit until `until`; false when it is still running then. Once it exited, what is
  // left of its group is killed before it is reaped (while its id still names the group).
  bool reap(std::optional<Clock::time_point> until);

  std::string role_;
  std::filesystem::path log_;
  GroupGuard guard_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int status_ = 0;
  std::string how_, ended_for_;
};

// The last line of a file that is not blank (a child's log: why it stopped), or "".
std::string last_line_of(const std::filesystem::path& file);

}  // namespace rb::bench
