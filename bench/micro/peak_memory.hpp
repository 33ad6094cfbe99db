// The peak memory of a piece of work, for the micro-benchmarks that report one (peak_MB): the
// reports at scale and the plan of packed documents.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rb::micro {

// A figure of /proc/self/status ("VmHWM", "VmRSS") in KiB, or -1.
inline double status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::strtod(line.c_str() + field.size() + 1, nullptr);
  return -1;
}

// The memory `work` takes at its peak, in MB, beyond what the process held before it: run in a child
// of its own (fork), its free memory given back and its high-water mark reset (/proc/self/clear_refs
// 5), since a child starts with every page of this process, which has held hundreds of MB of other
// benchmarks' input. -1 where the mark cannot be reset.
template <typename F>
double peak_mb_of(F work) {
  int pipe_fd[2];
  if (::pipe(pipe_fd) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fd[0]);
    double extra = -1;
    // Free memory this process kept is given back first: reused, its pages (resident already, shared
    // with the parent) would not count.
    ::malloc_trim(0);
    if (std::ofstream clear("/proc/self/clear_refs"); clear << "5" && clear.flush()) {
      clear.close();
      const double before = status_kib("VmRSS");
      work();
      const double peak = status_kib("VmHWM");
      if (before >= 0 && peak >= 0) extra = (peak - before) / 1024.0;
    }
    [[maybe_unused]] const ssize_t n = ::write(pipe_fd[1], &extra, sizeof extra);
    ::_exit(0);
  }
  ::close(pipe_fd[1]);
  double extra = -1;
  if (pid > 0 && ::read(pipe_fd[0], &extra, sizeof extra) != sizeof extra) extra = -1;
  ::close(pipe_fd[0]);
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
  return extra;
}

}  // namespace rb::micro
