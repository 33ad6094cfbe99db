// A child build of an A/B run: started with its pacing socket on fd 3, talked to, waited for.
#include "bench/cli/paced_child.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/sweep/interrupt.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

// The fd `run --pace-fd` is given: the first after stdin, stdout and stderr.
constexpr int kChildPaceFd = 3;
// The longest line of the protocol (round_pacing.hpp), and how often a wait looks at the clock and
// for a signal.
constexpr std::size_t kMaxLine = 1024;
constexpr int kSliceMs = 100;

}  // namespace

GroupGuard::GroupGuard(pid_t group) {
  int life[2];
  if (::pipe2(life, O_CLOEXEC) != 0) throw Error(fmt::format("a guard's pipe: {}", std::strerror(errno)));
  // Made before fork: the guard may only make async-signal-safe calls (the driver may have threads).
  const std::string stat_path = fmt::format("/proc/{}/stat", group);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // It holds nothing but the pipe's read end: a socket it kept open would never read as closed
    // to a build.
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &ignore, nullptr);
    ::dup2(life[0], STDIN_FILENO);
    ::close_range(STDIN_FILENO + 1, ~0U, 0);
    char c = 0;
    ssize_t n = 0;
    while ((n = ::read(STDIN_FILENO, &c, 1)) < 0 && errno == EINTR) {
    }
    if (n != 0) ::_exit(0);  // released: the driver ended the group itself
    // The driver died. The build sees its pacing socket closed, writes its results and exits (the
    // stop its results.json records); then, or once it had kGuardLeaderGrace, its group is ended.
    // The build is a zombie once it exited, until whoever inherited it reaps it.
    auto leader_alive = [&stat_path, group] {
      if (::kill(group, 0) != 0) return false;
      char buf[512];
      const int fd = ::open(stat_path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return false;
      const ssize_t got = ::read(fd, buf, sizeof buf);
      ::close(fd);
      for (ssize_t i = got - 1; i > 0; --i)
        if (buf[i] == ')') return i + 2 < got && buf[i + 2] != 'Z' && buf[i + 2] != 'X';
      return true;
    };
    auto wait_leader = [&](std::chrono::milliseconds limit) {
      const timespec slice{0, 10'000'000};
      for (auto waited = std::chrono::milliseconds(0); waited < limit && leader_alive();
           waited += std::chrono::milliseconds(10))
        ::nanosleep(&slice, nullptr);
    };
    wait_leader(kGuardLeaderGrace);
    ::kill(-group, SIGTERM);
    wait_leader(kGuardLeaderGrace);
    ::kill(-group, SIGKILL);
    ::_exit(0);
  }
  const int fork_errno = errno;
  ::close(life[0]);
  if (pid < 0) {
    ::close(life[1]);
    throw Error(fmt::format("starting a guard: {}", std::strerror(fork_errno)));
  }
  pid_ = pid;
  fd_ = life[1];
}

GroupGuard::GroupGuard(GroupGuard&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), fd_(std::exchange(other.fd_, -1)) {}

GroupGuard& GroupGuard::operator=(GroupGuard&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void GroupGuard::release() {
  if (fd_ >= 0) {
    [[maybe_unused]] const ssize_t n = ::write(fd_, "x", 1);  // a byte, not the pipe's end: released
    ::close(fd_);
    fd_ = -1;
  }
  if (pid_ > 0) {
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
}

PacedChild::PacedChild(std::string role, const std::vector<std::string>& argv, const std::filesystem::path& log)
    : role_(std::move(role)), log_(log) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    throw Error(fmt::format("the {} build's pacing socket: {}", role_, std::strerror(errno)));
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log_fd < 0 || null_fd < 0) {
    const std::string why = std::strerror(errno);
    for (int fd : {pair[0], pair[1], log_fd, null_fd})
      if (fd >= 0) ::close(fd);
    throw Error(fmt::format("the {} build's log {}: {}", role_, log.string(), why));
  }
  // Everything the child needs is made before fork: between fork and exec only async-signal-safe
  // calls are allowed.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);  // a group of its own, which the driver and its guard signal whole
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::dup2(null_fd, STDIN_FILENO);
    // dup2 onto itself would keep close-on-exec, so the flag is cleared there instead.
    if (pair[1] == kChildPaceFd)
      ::fcntl(kChildPaceFd, F_SETFD, 0);
    else
      ::dup2(pair[1], kChildPaceFd);
    ::execv(args[0], args.data());
    constexpr char msg[] = "ringbench ab: could not start the build\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  const int fork_errno = errno;
  for (int fd : {pair[1], log_fd, null_fd}) ::close(fd);
  if (pid < 0) {
    ::close(pair[0]);
    throw Error(fmt::format("starting the {} build: {}", role_, std::strerror(fork_errno)));
  }
  // Here too: whichever of the two runs first, the group exists before the driver may signal it.
  ::setpgid(pid, pid);
  pid_ = pid;
  fd_ = pair[0];
  try {
    guard_ = GroupGuard(pid);
  } catch (const Error&) {
    end("its guard could not be started");
    throw;
  }
}

PacedChild::~PacedChild() {
  if (running()) end("the A/B driver stopped on an error");
}

Heard PacedChild::next(std::optional<Clock::time_point> deadline, bool stop_on_signal) {
  Heard out;
  // One byte at a time: nothing past the line is taken from the socket, and the lines are few.
  while (fd_ >= 0) {
    if (stop_on_signal && interrupt_signal() != 0) {
      out.kind = Heard::Kind::interrupted;
      return out;
    }
    int slice_ms = kSliceMs;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) {
        out.kind = Heard::Kind::timed_out;
        return out;
      }
      slice_ms = static_cast<int>(std::min<long long>(left, kSliceMs));
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, slice_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char c = 0;
    const ssize_t n = ::read(fd_, &c, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    if (c == '\n') {
      out.kind = Heard::Kind::line;
      return out;
    }
    if (out.text.size() == kMaxLine) {
      out.kind = Heard::Kind::too_long;
      return out;
    }
    out.text.push_back(c);
  }
  out.kind = Heard::Kind::closed;
  return out;
}

bool PacedChild::send(std::string_view line) { return fd_ >= 0 && write_pace_line(fd_, line); }

bool PacedChild::reap(std::optional<Clock::time_point> until) {
  if (!running()) return true;
  int status = 0;
  for (;;) {
    // Seen exited but not reaped (WNOWAIT): its id still names its group, so what it left running
    // there is killed without a chance of meeting another process's group.
    siginfo_t info{};
    const int r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT | (until ? WNOHANG : 0));
    if (r == 0 && info.si_pid == pid_) {
      ::kill(-pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {  // not our child any more (cannot happen while pid_ is kept); nothing to wait for
      status = 0;
      break;
    }
    if (Clock::now() >= *until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  guard_.release();
  pid_ = -1;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    how_ = fmt::format("killed by signal {} ({})", sig, strsignal(sig));
    status_ = 128 + sig;
  } else {
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    how_ = fmt::format("exit {}", status_);
  }
  if (!ended_for_.empty()) how_ = fmt::format("{}, ended by the driver: {}", how_, ended_for_);
  return true;
}

int PacedChild::wait(std::chrono::seconds grace) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!reap(Clock::now() + grace)) end(fmt::format("it did not exit within {} s", grace.count()));
  return status_;
}

int PacedChild::end(const std::string& why) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!running()) return status_;
  ended_for_ = why;
  ::kill(-pid_, SIGTERM);  // its group: a build's own children too
  if (!reap(Clock::now() + kEndGrace)) {
    ended_for_ = fmt::format("{}; it ignored SIGTERM for {} s", why, kEndGrace.count());
    ::kill(-pid_, SIGKILL);
    reap(std::nullopt);
  }
  return status_;
}

std::string last_line_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

}  // namespace rb::bench
