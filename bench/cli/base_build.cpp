// `BASE_BIN --version`, read with deadlines and ended on a signal.
#include "bench/cli/base_build.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/cli/paced_child.hpp"
#include "bench/sweep/interrupt.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"

namespace rb::bench {
namespace {

using Clock = std::chrono::steady_clock;

// A git sha or a version as --version prints it: letters, digits and . _ + - (run checks the same).
bool plain_token(const std::string& v) {
  if (v.empty() || v.size() > 64) return false;
  for (const char c : v)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' ||
          c == '+' || c == '-'))
      return false;
  return true;
}

struct VersionOutput {
  std::string text;
  int status = 0;       // as a shell gives it
  std::string overdue;  // what did not finish in time, else ""
  bool interrupted = false;
};

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 100));  // short slices: a signal is seen soon
}

// `bin --version`'s output (at most 64 KiB) and its exit status, each wait bounded.
VersionOutput version_output(const std::string& bin) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    throw Error(fmt::format("ab: a pipe for BASE_BIN --version: {}", std::strerror(errno)));
  const char* argv[] = {bin.c_str(), "--version", nullptr};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);  // a group of its own, ended whole (paced_child.hpp's GroupGuard)
    ::dup2(out[1], STDOUT_FILENO);
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      ::dup2(null_fd, STDIN_FILENO);
      ::dup2(null_fd, STDERR_FILENO);
    }
    ::execv(argv[0], const_cast<char* const*>(argv));
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    throw Error(fmt::format("ab: starting BASE_BIN --version: {}", std::strerror(fork_errno)));
  }
  ::setpgid(pid, pid);
  std::optional<GroupGuard> guard;  // a driver killed meanwhile leaves nothing of it running
  try {
    guard.emplace(pid);
  } catch (const Error&) {
    ::kill(-pid, SIGKILL);
    ::close(out[0]);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw;
  }
  VersionOutput v;
  const auto deadline = Clock::now() + std::chrono::seconds(kVersionSeconds);
  for (;;) {
    if (interrupt_signal() != 0) {
      v.interrupted = true;
      break;
    }
    if (Clock::now() >= deadline) {
      v.overdue = fmt::format("its `--version` printed no end of output within {} s", kVersionSeconds);
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, remaining_ms(deadline));
    if (ready <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    v.text.append(buf, static_cast<std::size_t>(n));
    if (v.text.size() > 65536) break;
  }
  ::close(out[0]);
  // Its exit, within a few seconds of its output's end: waitpid alone waited for a --version that
  // closed its output and stayed alive, forever.
  int status = 0;
  bool exited = false;
  const auto exit_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(kVersionExitSeconds));
  while (v.overdue.empty() && !v.interrupted) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      exited = r == pid;
      break;
    }
    if (interrupt_signal() != 0) {
      v.interrupted = true;
    } else if (Clock::now() >= exit_deadline) {
      v.overdue = fmt::format("its `--version` did not exit within {} s of closing its output", kVersionExitSeconds);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (!exited) {
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return v;
  }
  v.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return v;
}

}  // namespace

std::optional<Build> probe_base(const std::string& bin) {
  const std::string problem = existing_path_problem(bin, false);
  if (!problem.empty()) throw InputError("BASE_BIN", bin, problem);
  if (::access(bin.c_str(), X_OK) != 0) throw InputError("BASE_BIN", bin, "not executable");
  const VersionOutput out = version_output(bin);
  if (out.interrupted) return std::nullopt;
  if (!out.overdue.empty()) throw InputError("BASE_BIN", bin, fmt::format("not a ringbench binary: {}", out.overdue));
  const std::string& text = out.text;
  std::vector<std::string> lines;
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t nl = text.find('\n', from);
    lines.push_back(text.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
    if (nl == std::string::npos) break;
    from = nl + 1;
  }
  const std::string first = lines.empty() ? "" : lines.front();
  if (out.status != 0 || first.rfind("ringbench ", 0) != 0)
    throw InputError("BASE_BIN", bin,
                     fmt::format("not a ringbench binary: `--version` {} '{}', not 'ringbench VERSION'",
                                 out.status == 0 ? "printed" : fmt::format("exited {} after printing", out.status),
                                 elide(first, 60)));
  Build b{first.substr(10), ""};
  for (const auto& l : lines)
    if (l.rfind("git: ", 0) == 0) b.git_sha = l.substr(5);
  if (b.git_sha.empty())
    throw InputError("BASE_BIN", bin,
                     fmt::format("predates A/B runs (ringbench {} prints no 'git:' line in --version); compare against "
                                 "its stored results instead",
                                 elide(b.version, 40)));
  if (!plain_token(b.version) || !plain_token(b.git_sha))
    throw InputError("BASE_BIN", bin,
                     fmt::format("its --version gives version '{}' and git '{}', not plain names", elide(b.version, 40),
                                 elide(b.git_sha, 40)));
  return b;
}

}  // namespace rb::bench
