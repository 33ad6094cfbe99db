// Progress of a sweep on stderr, as a table of one aligned row per configuration (docs/console.md):
// a header, then each configuration's row when it closes (status, median ± noise, the per-GPU rate,
// exposed comm, overlap, imbalance, error), marked `noisy` where its noise hides a 5% change from
// compare, and after the last row one summary of the noisy rows (a warning under every row was a
// wall on a loaded machine: 26 of 26 rows). Every row starts with a sweep-wide counter [k/N] of
// configuration-rounds and an ETA. On a terminal the configuration that runs shows as a live row
// rewritten in place ("round 2/3"); elsewhere (CI logs) nothing is printed per round but one line
// per pass of rounds of an interleaved sweep. `run --quiet` prints only failures, `--verbose` also a
// line per round.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/sweep/run_options.hpp"
#include "common/flops_unit.hpp"
#include "reports/results/run_record.hpp"

namespace rb::bench {

// A run's figures in one phrase: "median 1.234 ms ±2.1%  5.120 GFLOP/s per rank (slowest rank 4.980)
// max_err 1.2e-07", or why there is no timing yet (the --verbose round lines; a closing entry's
// detail starts with it). The headline rate is per rank (per GPU on the cuda backend), beside the
// slowest rank's own: never the sum over ranks, which can exceed one device's peak. Its unit is the
// backend's (common/flops_unit.hpp), as the table's rate column is.
std::string timing_detail(const reports::RunRecord& rec);

// The noise rule of the console: the smallest change in the median that two runs of n samples each
// with this run's noise (relative standard deviation) can tell from chance, taken as two standard
// errors of the difference of their means, 2 · noise · sqrt(2 / n). nullopt under two samples or
// without a noise.
std::optional<double> visible_change_pct(const reports::RecordTiming& t);
// compare's default threshold: a configuration whose visible change exceeds it is noisy.
inline constexpr double kVisibleChangeTargetPct = 5.0;
// The smallest change compare could see in a closed ok configuration whose noise hides a
// kVisibleChangeTargetPct change; nullopt where the noise does not hide it, or it did not run ok.
std::optional<double> hidden_change_pct(const reports::RunRecord& rec);

// "0:07", "12:34", "1:02:03"; "-" for a negative or non-finite time.
std::string eta_text(double seconds);

struct ProgressOptions {
  ConsoleMode mode = ConsoleMode::normal;
  int rounds = 1;          // each configuration's planned rounds (the fewest, under --max-noise)
  bool interleave = true;  // round r of every configuration, then r + 1 (a line per pass off a terminal)
  bool per_gpu = false;    // the cuda backend: the rate column is per GPU, else per rank
  // The rate column's unit: the sweep's backend's (common/flops_unit.hpp), known before the first row.
  FlopsUnit rate_unit = kTflops;
  // Whether `out` is a terminal; nullopt: RINGBENCH_TTY=1 or 0 where set, else isatty.
  std::optional<bool> terminal;
  // The live row's width on a terminal; 0: the terminal's (TIOCGWINSZ, else COLUMNS), else untrimmed.
  int width = 0;
};

class Progress {
 public:
  // labels: every configuration's, in sweep order. out == nullptr: silent (MPI ranks other than 0).
  Progress(std::vector<std::string> labels, ProgressOptions opts, std::FILE* out = stderr);
  ~Progress();  // clears a live row left on the terminal
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Configuration `index` starts round `round` (0-based) of `rounds` (0 while --max-noise samples on
  // until its target). A configuration skipped or closed without running starts round 0 of 1.
  void start(int index, int round = 0, int rounds = 1);
  // A round other than its last has ended; rec: its record so far.
  void round(int index, int round, int rounds, const reports::RunRecord& rec);
  // It closed. verdict: "ok", "FAILED", "skipped"; detail: the closing entry's (timing_detail(rec)
  // and a note, or the reason).
  void finish(int index, const std::string& verdict, const reports::RunRecord& rec, const std::string& detail);

  // The sweep's rows are all printed: one line on the noisy configurations, if any (how many of
  // those that ran ok, the worst, and what to do), where the rows were printed (not under --quiet).
  void end_of_sweep();

  // Configuration `index` will close in one step without rounds of its own (a c = 1 alias,
  // bench/sweep/c1_alias.hpp): the counter plans one step for it from the start, not `rounds`.
  void closes_in_one_step(int index) { set_planned(index, 1); }

  // The counter: configuration-rounds done, and planned (revised as configurations are skipped,
  // fail, or sample on under --max-noise).
  std::int64_t done() const { return done_total_; }
  std::int64_t planned() const { return planned_total_; }

 private:
  struct Column {
    std::string name;
    std::size_t width;
    bool right;
  };
  std::string counter() const;
  std::string eta() const;
  std::string row(int index, const std::string& status, const std::vector<std::string>& cells,
                  const std::string& tail) const;
  void header();
  void print_line(const std::string& text);  // a finished line, over the live row where one shows
  void live(const std::string& text);
  void set_planned(int index, std::int64_t steps);

  std::vector<std::string> labels_;
  ProgressOptions opts_;
  std::FILE* out_;
  bool tty_ = false;
  bool live_shown_ = false;  // the cursor is at the end of a live row
  bool header_shown_ = false;
  int pass_ = 0;  // the latest round any configuration started (interleaved passes)
  std::vector<Column> columns_;
  std::vector<std::int64_t> done_, planned_;
  std::vector<std::uint8_t> running_;  // a round started and has not ended
  std::vector<std::string> figures_;   // a configuration's cells after its latest round, joined
  std::int64_t done_total_ = 0, planned_total_ = 0;
  // The noise summary's: ok configurations closed (c = 1 aliases left out: they repeat a row), how
  // many were noisy, and the noisiest (the largest change compare could not see) with its row.
  int judged_ = 0, noisy_ = 0;
  std::optional<double> worst_change_;
  double worst_noise_pct_ = 0;
  std::int64_t worst_count_ = 0;
  int worst_index_ = -1;
  std::chrono::steady_clock::time_point sweep_started_, round_started_, pass_started_;
};

}  // namespace rb::bench
