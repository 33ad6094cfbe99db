// Progress lines on stderr.
#include "bench/sweep/progress.hpp"

#include <optional>

#include <fmt/format.h>
#include <unistd.h>

#include "common/console.hpp"

namespace rb::bench {

std::string timing_detail(const reports::RunRecord& rec) {
  const reports::RecordTiming& t = rec.timing;
  // Every sample dropped as throttled so far: no timing to show, only why.
  if (!t.median_ms) return rec.reason.empty() ? std::string("no timed sample kept") : rec.reason;
  auto num = [](std::optional<double> v, const char* f) {
    return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
  };
  const std::optional<double> err = rec.correctness ? rec.correctness->max_abs_err : std::nullopt;
  return fmt::format("median {:.3f} ms ±{}%  {} TFLOP/s per {} (slowest rank {})  max_err {}", *t.median_ms,
                     num(t.noise_pct, "{:.1f}"), num(rec.metrics.attention_tflops, "{:.3f}"),
                     rec.config.backend == "cuda" ? "GPU" : "rank",
                     num(rec.metrics.attention_tflops_slowest_rank, "{:.3f}"), num(err, "{:.2e}"));
}

Progress::Progress(int total, std::FILE* out)
    : total_(total), out_(out), tty_(out != nullptr && ::isatty(::fileno(out)) != 0) {}

void Progress::start(int index, const std::string& label, int round, int rounds) {
  started_ = std::chrono::steady_clock::now();
  if (!tty_) return;
  if (rounds > 1)
    print_quietly(out_,
                  fmt::format("[{}/{}] running {} (round {}/{}) ...", index + 1, total_, label, round + 1, rounds),
                  LineStart::clear);
  else if (rounds == 0)
    print_quietly(out_,
                  fmt::format("[{}/{}] running {} (round {}, until steady) ...", index + 1, total_, label, round + 1),
                  LineStart::clear);
  else
    print_quietly(out_, fmt::format("[{}/{}] running {} ...", index + 1, total_, label), LineStart::clear);
}

void Progress::round(int index, const std::string& label, int round, int rounds, const std::string& detail) {
  line(index, rounds > 0 ? fmt::format("r{}/{}", round + 1, rounds) : fmt::format("r{}", round + 1), label, detail);
}

void Progress::finish(int index, const std::string& label, const std::string& verdict, const std::string& detail) {
  line(index, verdict, label, detail);
}

void Progress::line(int index, const std::string& verdict, const std::string& label, const std::string& detail) {
  if (!out_) return;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const int width = static_cast<int>(fmt::formatted_size("{}", total_));
  print_quietly(out_,
                fmt::format("[{:>{}}/{}] {:<7} {}  {}  ({:.1f} s)\n", index + 1, width, total_, verdict, label, detail,
                            secs),
                tty_ ? LineStart::clear : LineStart::keep);
}

}  // namespace rb::bench
