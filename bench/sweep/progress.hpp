// Progress of a sweep on stderr: one line per configuration with its verdict when it ends, one per
// earlier round ("r1/3") so a long interleaved sweep shows it is alive, and on a terminal a live
// line naming the configuration and round that is running.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "reports/results/run_record.hpp"

namespace rb::bench {

// A run's figures for its progress line: "median 1.234 ms ±2.1%  0.512 TFLOP/s per rank (slowest rank
// 0.498)  max_err 1.2e-07", or why there is no timing yet. The headline rate is per rank (per GPU on
// the cuda backend), beside the slowest rank's own: never the sum over ranks, which can exceed one
// device's peak.
std::string timing_detail(const reports::RunRecord& rec);

class Progress {
 public:
  Progress(int total, std::FILE* out = stderr);  // out == nullptr: silent (MPI ranks other than 0)
  // rounds: the configuration's planned rounds; 0 while a --max-noise configuration samples on
  // until its noise target, so the line does not promise the round cap.
  void start(int index, const std::string& label, int round = 0, int rounds = 1);
  // A round other than the configuration's last has ended (detail: its timing so far).
  void round(int index, const std::string& label, int round, int rounds, const std::string& detail);
  // verdict: "ok", "FAILED", "skipped"; detail: timing and error summary or the reason.
  void finish(int index, const std::string& label, const std::string& verdict, const std::string& detail);

 private:
  int total_;
  std::FILE* out_;
  bool tty_;
  void line(int index, const std::string& verdict, const std::string& label, const std::string& detail);
  std::chrono::steady_clock::time_point started_;
};

}  // namespace rb::bench
