// One build of an A/B run as its driver (`ringbench ab`) sees it: a `run` child process whose fd 3
// is its end of a pacing socket (bench/sweep/round_pacing.hpp), with stdin from /dev/null and
// stdout and stderr into a log file. The driver alternates the children by the lines they trade.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "bench/sweep/round_pacing.hpp"

namespace rb::bench {

class PacedChild {
 public:
  // Starts argv (argv[0] the binary's path). Throws rb::Error when it cannot be started.
  PacedChild(std::string role, const std::vector<std::string>& argv, const std::filesystem::path& log);
  // A child still running (the driver is unwinding an error) is asked to stop as if interrupted,
  // so it writes what it measured, and is waited for.
  ~PacedChild();
  PacedChild(const PacedChild&) = delete;
  PacedChild& operator=(const PacedChild&) = delete;

  const std::string& role() const { return role_; }
  const std::filesystem::path& log() const { return log_; }
  // Its next line, waiting as long as its pass takes (a signal to the driver does not cut it short).
  PaceLine next();
  // False when it is gone.
  bool send(std::string_view line);
  // Closes the socket and waits for it to exit; its status as a shell gives it (128 + N for signal N).
  int wait();
  bool running() const { return pid_ > 0; }
  // How it ended, once waited for: "exit 1", "killed by signal 9 (Killed)".
  const std::string& how() const { return how_; }

 private:
  std::string role_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int status_ = 0;
  std::string how_;
};

// The last line of a file that is not blank (a child's log: why it stopped), or "".
std::string last_line_of(const std::filesystem::path& file);

}  // namespace rb::bench
