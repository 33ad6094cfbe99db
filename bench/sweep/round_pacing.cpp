// The A/B pacing protocol: its lines, and the sweep's side of it.
#include "bench/sweep/round_pacing.hpp"

#include <cerrno>
#include <csignal>
#include <cstddef>

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/sweep/interrupt.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

constexpr std::size_t kMaxLine = 1024;
// How often a wait looks at whether a signal arrived, should one land just before poll() starts.
constexpr int kSignalPollMs = 200;

std::string signal_text(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : std::to_string(sig); }

}  // namespace

const char* to_string(PaceUnit u) {
  switch (u) {
    case PaceUnit::pass: return "pass";
    case PaceUnit::configuration: return "configuration";
    case PaceUnit::sample: return "sample";
  }
  return "?";
}

PaceUnit parse_pace_unit(std::string_view s, std::string_view field) {
  for (const PaceUnit u : {PaceUnit::pass, PaceUnit::configuration, PaceUnit::sample})
    if (s == to_string(u)) return u;
  throw InputError(std::string(field), std::string(s), "must be configuration, pass or sample");
}

nlohmann::json to_json(const Pairing& p) {
  nlohmann::json order = nlohmann::json::array();
  for (const auto& f : p.first_by_round) order.push_back(f.empty() ? nlohmann::json(nullptr) : nlohmann::json(f));
  return {{"role", p.role},
          {"partner_git_sha", p.partner_git_sha},
          {"partner_version", p.partner_version},
          {"first_by_round", order},
          {"pair_id", p.pair_id},
          {"unit", to_string(p.unit)}};
}

PaceLine read_pace_line(int fd, bool stop_on_signal) {
  PaceLine out;
  // One byte at a time: nothing past the line is taken from the socket, and the lines are few.
  for (;;) {
    if (stop_on_signal && interrupt_signal() != 0) return {PaceLine::Kind::interrupted, std::move(out.text)};
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, kSignalPollMs);
    if (ready < 0 && errno != EINTR) return {PaceLine::Kind::closed, std::move(out.text)};
    if (ready <= 0) continue;
    char c = 0;
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return {PaceLine::Kind::closed, std::move(out.text)};
    if (c == '\n') {
      out.kind = PaceLine::Kind::line;
      return out;
    }
    if (out.text.size() == kMaxLine) return {PaceLine::Kind::too_long, std::move(out.text)};
    out.text.push_back(c);
  }
}

bool write_pace_line(int fd, std::string_view line) {
  std::string text(line);
  text.push_back('\n');
  std::size_t done = 0;
  while (done < text.size()) {
    // MSG_NOSIGNAL: a driver that is gone is an answer, not a SIGPIPE (a socket that is not one,
    // in a test, falls back to write()).
    ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

RoundPacer::RoundPacer(int fd, PaceUnit unit) : fd_(fd), unit_(unit) {}

RoundPacer::~RoundPacer() { ::close(fd_); }

PaceAnswer RoundPacer::before_round(int round) {
  if (round > pass_) {
    pass_ = round;
    turn_ = 0;
  } else if (unit_ == PaceUnit::pass) {
    return {};
  }
  if (unit_ == PaceUnit::pass) return ask(fmt::format("ready {}", round), round);
  ++turn_;
  step_ = 0;
  if (unit_ == PaceUnit::sample) return ask(fmt::format("ready {} {} 0", round, turn_), round);
  return ask(fmt::format("ready {} {}", round, turn_), round);
}

PaceAnswer RoundPacer::before_sample(int sample) {
  if (unit_ != PaceUnit::sample) return {};
  step_ = sample;
  return ask(fmt::format("ready {} {} {}", pass_, turn_, sample), pass_);
}

PaceAnswer RoundPacer::ask(const std::string& ready, int round) {
  const std::string channel = "the A/B driver";
  if (!write_pace_line(fd_, ready))
    return {fmt::format("{} is gone (its pacing socket closed before round {})", channel, round), 0};
  const PaceLine answer = read_pace_line(fd_, true);
  switch (answer.kind) {
    case PaceLine::Kind::interrupted:
      return {fmt::format("the sweep was interrupted by {}", signal_text(interrupt_signal())), interrupt_signal()};
    case PaceLine::Kind::closed:
      return {fmt::format("{} is gone (its pacing socket closed before round {})", channel, round), 0};
    case PaceLine::Kind::too_long:
      return {fmt::format("{} sent a line of over {} bytes before round {}, not 'go'", channel, kMaxLine, round), 0};
    case PaceLine::Kind::line: break;
  }
  const std::string& line = answer.text;
  if (line == "go" || line == "go base" || line == "go new") {
    if (unit_ == PaceUnit::pass || (turn_ == 1 && step_ == 0)) first_.push_back(line == "go" ? "" : line.substr(3));
    return {};
  }
  if (line.rfind("stop ", 0) == 0) return {fmt::format("stopped by {}: {}", channel, line.substr(5)), 0};
  return {fmt::format("{} sent '{}' before round {}, not 'go'", channel, elide(line, 80), round), 0};
}

void RoundPacer::done() { write_pace_line(fd_, "done"); }

}  // namespace rb::bench
