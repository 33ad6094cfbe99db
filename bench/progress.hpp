// Progress of a sweep on stderr: one line per configuration with its verdict, and on a terminal a
// live line naming the configuration that is running.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace rb::bench {

class Progress {
 public:
  Progress(int total, std::FILE* out = stderr);  // out == nullptr: silent (MPI ranks other than 0)
  void start(int index, const std::string& label);
  // verdict: "ok", "FAILED", "skipped"; detail: timing and error summary or the reason.
  void finish(int index, const std::string& label, const std::string& verdict, const std::string& detail);

 private:
  int total_;
  std::FILE* out_;
  bool tty_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace rb::bench
