// A child build of an A/B run: started with its pacing socket on fd 3, talked to, waited for.
#include "bench/cli/paced_child.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.hpp"

namespace rb::bench {
namespace {

// The fd `run --pace-fd` is given: the first after stdin, stdout and stderr.
constexpr int kChildPaceFd = 3;

}  // namespace

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
  pid_ = pid;
  fd_ = pair[0];
}

PacedChild::~PacedChild() {
  if (!running()) return;
  ::kill(pid_, SIGTERM);
  wait();
}

PaceLine PacedChild::next() { return read_pace_line(fd_, false); }

bool PacedChild::send(std::string_view line) { return write_pace_line(fd_, line); }

int PacedChild::wait() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!running()) return status_;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    how_ = fmt::format("killed by signal {} ({})", sig, strsignal(sig));
    status_ = 128 + sig;
  } else {
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    how_ = fmt::format("exit {}", status_);
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
