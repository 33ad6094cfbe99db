// The console of a sweep: its table on stderr (progress.hpp).
#include "bench/sweep/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/console.hpp"

namespace rb::bench {
namespace {

// Columns as a terminal shows them: a UTF-8 sequence ("±") is one.
std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  const std::size_t w = display_width(s);
  if (w >= width) return s;
  return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

// The first `width` columns of `s`.
std::string trimmed(const std::string& s, std::size_t width) {
  std::size_t cols = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80 && cols++ == width) return s.substr(0, i);
  }
  return s;
}

std::string num(std::optional<double> v, const char* f) { return v ? fmt::format(fmt::runtime(f), *v) : "-"; }

// The largest error the check saw: the output's and, with a backward, its gradients' (the status
// says whether each kept its own tolerance).
std::optional<double> largest_error(const reports::RunRecord& rec) {
  if (!rec.correctness) return std::nullopt;
  std::optional<double> err = rec.correctness->max_abs_err;
  if (const auto& g = rec.correctness->gradients)
    for (const auto* t : {&g->dq, &g->dk, &g->dv})
      if (*t && (*t)->max_abs_err) err = err ? std::max(*err, *(*t)->max_abs_err) : (*t)->max_abs_err;
  return err;
}

int digits(std::int64_t n) { return static_cast<int>(fmt::formatted_size("{}", n)); }

// A rate kept in TFLOP/s, in `unit`, or nullopt.
std::optional<double> rate_in(FlopsUnit unit, std::optional<double> tflops) {
  return tflops ? std::optional<double>(unit.of_tflops(*tflops)) : std::nullopt;
}

// The figure cells of a record, in the order of the columns after the status; its rate in `unit`.
std::vector<std::string> figure_cells(const reports::RunRecord& rec, FlopsUnit unit) {
  const reports::RecordTiming& t = rec.timing;
  const reports::RecordMetrics& m = rec.metrics;
  const bool comm = m.present && !m.comm_basis.empty();
  std::optional<double> exposed_pct;
  const std::optional<double> pass_ms = m.pass_time_ms ? m.pass_time_ms : t.median_ms;
  if (comm && m.exposed_comm_ms && pass_ms && *pass_ms > 0) exposed_pct = 100.0 * *m.exposed_comm_ms / *pass_ms;
  const std::optional<double> err = largest_error(rec);
  return {num(t.median_ms, "{:.3f}"),
          t.noise_pct && t.count && *t.count >= 2 ? fmt::format("±{:.1f}%", *t.noise_pct) : "-",
          num(rate_in(unit, m.attention_tflops), "{:.3f}"),
          comm ? num(m.exposed_comm_ms, "{:.3f}") : "-",
          comm ? num(exposed_pct, "{:.1f}%") : "-",
          comm && m.overlap_fraction ? fmt::format("{:.1f}%", *m.overlap_fraction * 100.0) : "-",
          num(m.imbalance ? m.imbalance : m.work_imbalance, "{:.3f}"),
          num(err, "{:.2e}")};
}

// RINGBENCH_TTY=1 or 0 forces the terminal's console or the log's (tests; a pipe a person watches).
std::optional<bool> tty_override() {
  const char* v = std::getenv("RINGBENCH_TTY");
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string_view(v) != "0";
}

int terminal_width(std::FILE* out) {
  winsize ws{};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    const int n = std::atoi(c);
    if (n > 0) return n;
  }
  return 0;
}

}  // namespace

std::string timing_detail(const reports::RunRecord& rec) {
  const reports::RecordTiming& t = rec.timing;
  // Every sample dropped as throttled so far: no timing to show, only why.
  if (!t.median_ms) return rec.reason.empty() ? std::string("no timed sample kept") : rec.reason;
  const std::optional<double> err = largest_error(rec);
  std::string parts;  // a pass with a backward: each part's median
  if (t.bwd_median_ms)
    parts = fmt::format("  (fwd {} ms, bwd {:.3f} ms)", num(t.fwd_median_ms, "{:.3f}"), *t.bwd_median_ms);
  const FlopsUnit unit = flops_unit(rec.config.backend);
  return fmt::format("median {:.3f} ms ±{}%{}  {} {} per {} (slowest rank {})  max_err {}", *t.median_ms,
                     num(t.noise_pct, "{:.1f}"), parts, num(rate_in(unit, rec.metrics.attention_tflops), "{:.3f}"),
                     unit.name, rec.config.backend == "cuda" ? "GPU" : "rank",
                     num(rate_in(unit, rec.metrics.attention_tflops_slowest_rank), "{:.3f}"), num(err, "{:.2e}"));
}

std::optional<double> visible_change_pct(const reports::RecordTiming& t) {
  if (!t.noise_pct || !t.count || *t.count < 2 || !std::isfinite(*t.noise_pct)) return std::nullopt;
  return 2.0 * *t.noise_pct * std::sqrt(2.0 / static_cast<double>(*t.count));
}

std::optional<double> hidden_change_pct(const reports::RunRecord& rec) {
  const std::optional<double> visible = visible_change_pct(rec.timing);
  if (rec.status != RunStatus::ok || !visible || *visible <= kVisibleChangeTargetPct) return std::nullopt;
  return visible;
}

std::string eta_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e9) return "-";
  const auto s = static_cast<std::int64_t>(std::llround(seconds));
  if (s < 3600) return fmt::format("{}:{:02}", s / 60, s % 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

Progress::Progress(std::vector<std::string> labels, ProgressOptions opts, std::FILE* out)
    : labels_(std::move(labels)), opts_(opts), out_(out) {
  const std::size_t n = labels_.size();
  opts_.rounds = std::max(1, opts_.rounds);
  done_.assign(n, 0);
  planned_.assign(n, opts_.rounds);
  running_.assign(n, 0);
  figures_.assign(n, "");
  planned_total_ = static_cast<std::int64_t>(n) * opts_.rounds;
  sweep_started_ = round_started_ = pass_started_ = std::chrono::steady_clock::now();
  if (out_ == nullptr) return;
  tty_ = opts_.terminal ? *opts_.terminal : tty_override().value_or(::isatty(::fileno(out_)) != 0);
  if (tty_ && opts_.width == 0) opts_.width = terminal_width(out_);

  std::size_t label_width = 13;
  for (const auto& l : labels_) label_width = std::max(label_width, display_width(l));
  const int d = digits(planned_total_);
  const std::size_t status_width = std::max<std::size_t>(7, 7 + 2 * static_cast<std::size_t>(digits(opts_.rounds)));
  columns_ = {{"# k/N", std::max<std::size_t>(5, 2 * static_cast<std::size_t>(d) + 3), false},
              {"ETA", 7, true},
              {"configuration", label_width, false},
              {"status", status_width, false},
              {"median_ms", 10, true},
              {"noise", 8, true},
              {fmt::format("{}/{}", opts_.rate_unit.name, opts_.per_gpu ? "GPU" : "rank"), 12, true},
              {"exposed_ms", 10, true},
              {"exposed%", 8, true},
              {"overlap", 7, true},
              {"imbalance", 9, true},
              {"max_err", 9, true}};
}

Progress::~Progress() {
  if (live_shown_) print_quietly(out_, "", LineStart::clear);
}

std::string Progress::counter() const {
  const int d = static_cast<int>(columns_.empty() ? 1 : (columns_[0].width - 3) / 2);
  return fmt::format("[{:>{}}/{}]", done_total_, d, planned_total_);
}

std::string Progress::eta() const {
  if (done_total_ == 0) return "-";
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_started_).count();
  return eta_text(elapsed * static_cast<double>(planned_total_ - done_total_) / static_cast<double>(done_total_));
}

std::string Progress::row(int index, const std::string& status, const std::vector<std::string>& cells,
                          const std::string& tail) const {
  std::string s = pad(counter(), columns_[0].width, false) + "  " + pad(eta(), columns_[1].width, true) + "  " +
                  pad(labels_[static_cast<std::size_t>(index)], columns_[2].width, false) + "  " +
                  pad(status, columns_[3].width, false);
  for (std::size_t c = 0; c < cells.size() && 4 + c < columns_.size(); ++c)
    s += "  " + pad(cells[c], columns_[4 + c].width, columns_[4 + c].right);
  if (!tail.empty()) s += "  " + tail;
  // A failure's reason follows its status; a row's trailing spaces (a blank status) go.
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void Progress::header() {
  if (header_shown_ || opts_.mode == ConsoleMode::quiet) return;
  header_shown_ = true;
  std::string s;
  for (std::size_t c = 0; c < columns_.size(); ++c)
    s += (c == 0 ? "" : "  ") + pad(columns_[c].name, columns_[c].width, columns_[c].right);
  print_line(s);
}

void Progress::print_line(const std::string& text) {
  print_quietly(out_, text + "\n", live_shown_ ? LineStart::clear : LineStart::keep);
  live_shown_ = false;
}

void Progress::live(const std::string& text) {
  print_quietly(out_, opts_.width > 1 ? trimmed(text, static_cast<std::size_t>(opts_.width) - 1) : text,
                LineStart::clear);
  live_shown_ = true;
}

void Progress::set_planned(int index, std::int64_t steps) {
  auto& p = planned_[static_cast<std::size_t>(index)];
  planned_total_ += steps - p;
  p = steps;
}

void Progress::start(int index, int round, int rounds) {
  const auto i = static_cast<std::size_t>(index);
  round_started_ = std::chrono::steady_clock::now();
  // A configuration that already ran rounds and now closes without another (the sweep stopped)
  // takes no step.
  running_[i] = !(round == 0 && done_[i] > 0);
  if (running_[i]) set_planned(index, rounds > 0 ? rounds : std::max<std::int64_t>(planned_[i], round + 1));
  if (out_ == nullptr || opts_.mode == ConsoleMode::quiet) return;
  // Off a terminal an interleaved sweep says when each pass of rounds is done.
  if (opts_.interleave && round > pass_) {
    const double secs = std::chrono::duration<double>(round_started_ - pass_started_).count();
    if (!tty_)
      print_line(fmt::format("# {} round {}{} of every configuration done in {:.1f} s; ETA {}", counter(), pass_ + 1,
                             rounds > 0 ? fmt::format("/{}", rounds) : "", secs, eta()));
    pass_ = round;
    pass_started_ = round_started_;
  }
  if (!tty_ || !running_[i]) return;
  header();
  const std::string status = rounds > 0 ? fmt::format("round {}/{}", round + 1, rounds)
                                        : fmt::format("round {}", round + 1);
  live(row(index, status, {}, figures_[i]));
}

void Progress::round(int index, int round, int rounds, const reports::RunRecord& rec) {
  const auto i = static_cast<std::size_t>(index);
  if (running_[i]) {
    ++done_[i];
    ++done_total_;
    running_[i] = 0;
  }
  if (out_ == nullptr || opts_.mode == ConsoleMode::quiet) return;
  if (opts_.mode == ConsoleMode::verbose) {
    // The line of each round as before the table: the configuration's place in the sweep.
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - round_started_).count();
    const int width = digits(static_cast<std::int64_t>(labels_.size()));
    const std::string r = rounds > 0 ? fmt::format("r{}/{}", round + 1, rounds) : fmt::format("r{}", round + 1);
    print_line(fmt::format("[{:>{}}/{}] {:<7} {}  {}  ({:.1f} s)", index + 1, width, labels_.size(), r, labels_[i],
                           timing_detail(rec), secs));
  }
  if (tty_) {
    // The figures so far, joined into the cells after the status.
    const std::vector<std::string> cells = figure_cells(rec, opts_.rate_unit);
    std::string joined;
    for (std::size_t c = 0; c < cells.size() && 4 + c < columns_.size(); ++c)
      joined += (c == 0 ? "" : "  ") + pad(cells[c], columns_[4 + c].width, columns_[4 + c].right);
    figures_[i] = std::move(joined);
    header();
    const std::string status = rounds > 0 ? fmt::format("round {}/{}", round + 1, rounds)
                                          : fmt::format("round {}", round + 1);
    live(row(index, status, {}, figures_[i]));
  }
}

void Progress::finish(int index, const std::string& verdict, const reports::RunRecord& rec, const std::string& detail) {
  const auto i = static_cast<std::size_t>(index);
  if (running_[i]) {
    ++done_[i];
    ++done_total_;
    running_[i] = 0;
  }
  set_planned(index, done_[i]);
  figures_[i].clear();
  figures_[i].shrink_to_fit();
  if (out_ == nullptr) return;
  if (opts_.mode == ConsoleMode::quiet) {
    if (verdict == "FAILED") print_line(fmt::format("ringbench: FAILED {}: {}", labels_[i], detail));
    return;
  }
  header();
  if (verdict != "ok") {
    print_line(row(index, verdict, {}, detail));
    return;
  }
  // An ok closing entry's detail is its timing and maybe a note: the rounds a stopped sweep kept,
  // the configuration a c = 1 alias repeats.
  std::string note = detail;
  if (const std::string timing = timing_detail(rec); note.starts_with(timing)) note.erase(0, timing.size());
  note.erase(0, note.find_first_not_of(' ') == std::string::npos ? note.size() : note.find_first_not_of(' '));
  // A c = 1 alias ("= S=… (c = 1: …)") repeats a row that is marked and counted already.
  const std::optional<double> hidden = note.starts_with("= ") ? std::nullopt : hidden_change_pct(rec);
  // The mark goes in the row, after its figures; what to do is said once, by end_of_sweep.
  std::string tail = note;
  if (hidden) tail = note.empty() ? "noisy" : "noisy  " + note;
  print_line(row(index, verdict, figure_cells(rec, opts_.rate_unit), tail));
  if (note.starts_with("= ")) return;
  ++judged_;
  if (!hidden) return;
  ++noisy_;
  if (!worst_change_ || *hidden > *worst_change_) {
    worst_change_ = hidden;
    worst_noise_pct_ = rec.timing.noise_pct.value_or(0.0);
    worst_count_ = rec.timing.count.value_or(0);
    worst_index_ = index;
  }
}

void Progress::end_of_sweep() {
  // Said once, with the count, as nccl-tests and NVBench do: a line under every noisy row was a wall
  // on a loaded machine, and the advice is the same for each.
  if (out_ == nullptr || opts_.mode == ConsoleMode::quiet || noisy_ == 0 || worst_index_ < 0) return;
  print_line(fmt::format(
      "! {} of {} configuration{} {} noisy: the noise hides a {:g}% change from compare. The worst, {}: noise "
      "±{:.1f}% over {} samples (the smallest change compare could see: {:.1f}%). Take more samples (--repeats, "
      "--rounds, --max-noise) or quiet the machine",
      noisy_, judged_, judged_ == 1 ? "" : "s", noisy_ == 1 ? "is" : "are", kVisibleChangeTargetPct,
      labels_[static_cast<std::size_t>(worst_index_)], worst_noise_pct_, worst_count_, *worst_change_));
}

}  // namespace rb::bench
