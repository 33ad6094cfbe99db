// `ringbench ab BASE_BIN [PROFILE.json] [run flags] --out DIR`: an A/B run. BASE_BIN (another
// ringbench build) and this build run the same sweep as two `run` children, DIR/base and DIR/new,
// and take turns (bench/sweep/round_pacing.hpp): one timed pass at a time (--pace sample, the
// default), one configuration's round at a time (--pace configuration), or one pass of rounds (--pace
// pass), counterbalanced ABBA; a base that predates the unit asked for gets the finest it speaks. So
// only one build measures at any moment, and a burst or a drift on the machine lands on both alike;
// by sample, the two builds' passes are next to each other, closer than the machine's speed drifts
// on a shared host (docs/compare.md). Each results.json records the pairing.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/cli/command.hpp"
#include "bench/cli/paced_child.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"
#include "bench/sweep/interrupt.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::bench {
namespace {

namespace fs = std::filesystem;

struct AbFlags {
  std::string base_bin, out, inject_fault_new;
  std::string pace = "sample";
  std::vector<std::string> run_args;  // everything else: passed to both builds' `run`
};

struct Build {
  std::string version, git_sha;
};

// What `ab` passes to each build itself; given among the run options they would clash.
constexpr std::string_view kOwnFlags[] = {"--pace-fd", "--pace-unit",   "--pair-role",
                                          "--pair-id", "--partner-sha", "--partner-version"};

// Where the refusal of an older build names a flag `ab` passed: it predates A/B runs.
bool names_own_flag(const std::string& line) {
  for (const auto flag : kOwnFlags)
    if (line.find(flag) != std::string::npos) return true;
  return false;
}

// A git sha or a version as --version prints it: letters, digits and . _ + - (run checks the same).
bool plain_token(const std::string& v) {
  if (v.empty() || v.size() > 64) return false;
  for (const char c : v)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' ||
          c == '+' || c == '-'))
      return false;
  return true;
}

// `bin --version`'s output (at most 64 KiB, within 60 s), and its exit status.
std::pair<std::string, int> version_output(const std::string& bin) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    throw Error(fmt::format("ab: a pipe for BASE_BIN --version: {}", std::strerror(errno)));
  const char* argv[] = {bin.c_str(), "--version", nullptr};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      ::dup2(null_fd, STDIN_FILENO);
      ::dup2(null_fd, STDERR_FILENO);
    }
    ::execv(argv[0], const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    throw Error(fmt::format("ab: starting BASE_BIN --version: {}", std::strerror(errno)));
  }
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                            std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > 65536) break;
  }
  ::close(out[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return {text, -1};
  return {text, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)};
}

// BASE_BIN's version and commit, from its --version: a build that prints no `git:` line predates
// A/B runs, since the line came with them.
Build probe_base(const std::string& bin) {
  const std::string problem = existing_path_problem(bin, false);
  if (!problem.empty()) throw InputError("BASE_BIN", bin, problem);
  if (::access(bin.c_str(), X_OK) != 0) throw InputError("BASE_BIN", bin, "not executable");
  const auto [text, status] = version_output(bin);
  std::vector<std::string> lines;
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t nl = text.find('\n', from);
    lines.push_back(text.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
    if (nl == std::string::npos) break;
    from = nl + 1;
  }
  const std::string first = lines.empty() ? "" : lines.front();
  if (status != 0 || first.rfind("ringbench ", 0) != 0)
    throw InputError("BASE_BIN", bin,
                     fmt::format("not a ringbench binary: `--version` {} '{}', not 'ringbench VERSION'",
                                 status == 0 ? "printed" : fmt::format("exited {} after printing", status),
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

std::string random_pair_id() {
  std::random_device rd;
  std::uniform_int_distribution<unsigned> digit(0, 15);
  std::string id;
  for (int i = 0; i < 16; ++i) id.push_back("0123456789abcdef"[digit(rd)]);
  return id;
}

enum class State { ready, done, ended };

// Where a build's sweep stands: the turn it waits for (pass 1-based; turn 0 under unit pass, else
// the turn's place in its pass, 1-based; step, unit sample only: 0 before the round, else the timed
// pass).
struct Position {
  int pass = 0, turn = 0, step = 0;
  auto operator<=>(const Position&) const = default;
};

// One build's child and where it stands.
struct Side {
  std::unique_ptr<PacedChild> child;
  State state = State::ready;  // ready: it waits at `at` for the driver's go
  Position at;
  int status = 0;     // its exit status, once done or ended
  std::string ended;  // how it ended, when it ended before its last turn
  double pass_s = 0;  // time its turns of the pass being reported took
};

// `ready R` (unit pass), `ready R I` (unit configuration) or `ready R I S` (unit sample) naming the
// turn right after `at`: the next pass; under unit configuration the next turn of this pass; under
// unit sample the next timed pass of this round, or the start of the next round (a round that failed
// or was skipped ends early).
bool next_ready(const std::string& text, PaceUnit unit, Position at, Position& next) {
  int pass = 0, turn = 0, step = 0;
  char tail = 0;
  const int n = std::sscanf(text.c_str(), "ready %d %d %d%c", &pass, &turn, &step, &tail);
  const int fields = unit == PaceUnit::pass ? 1 : unit == PaceUnit::configuration ? 2 : 3;
  const std::string want = fields == 1   ? fmt::format("ready {}", pass)
                           : fields == 2 ? fmt::format("ready {} {}", pass, turn)
                                         : fmt::format("ready {} {} {}", pass, turn, step);
  if (text != want || n != fields) return false;
  const bool next_round = (pass == at.pass && turn == at.turn + 1) || (pass > at.pass && turn == 1);
  bool after = false;
  switch (unit) {
    case PaceUnit::pass: after = pass == at.pass + 1; break;
    case PaceUnit::configuration: after = next_round; break;
    case PaceUnit::sample:
      after = (next_round && step == 0) || (pass == at.pass && turn == at.turn && step == at.step + 1);
      break;
  }
  if (!after) return false;
  next = {pass, turn, fields == 3 ? step : 0};
  return true;
}

// Files what a child said after its turn: ready for the next one, done, or gone (any other line, a
// turn out of order included, ends it).
void take(Side& s, const PaceLine& line, PaceUnit unit) {
  if (line.kind == PaceLine::Kind::line && next_ready(line.text, unit, s.at, s.at)) return;
  if (line.kind == PaceLine::Kind::line && line.text == "done" && s.at.pass > 0) {
    s.state = State::done;
    s.status = s.child->wait();  // it writes results.json first: nothing else runs meanwhile
    return;
  }
  s.state = State::ended;
  s.status = s.child->wait();
  const std::string said = line.kind == PaceLine::Kind::line ? fmt::format(", after saying '{}'", elide(line.text, 60))
                                                             : std::string();
  const std::string last = last_line_of(s.child->log());
  s.ended = fmt::format("{}{}{}", s.child->how(), said, last.empty() ? "" : ": " + elide(last, 200));
}

// What one turn is, for the driver's lines.
const char* turn_phrase(PaceUnit unit) {
  switch (unit) {
    case PaceUnit::pass: return "one pass of rounds at a time";
    case PaceUnit::configuration: return "one configuration's round at a time";
    case PaceUnit::sample: return "one timed pass at a time";
  }
  return "?";
}

std::string signal_text(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : std::to_string(sig); }

// Stops a child that waits for its next turn, with the reason its results.json records.
void stop(Side& s, const std::string& reason) {
  if (s.state != State::ready) return;
  s.child->send("stop " + reason);
  s.status = s.child->wait();
  s.state = State::ended;
}

// The builds that run the next turn, in order. Both when both wait in the same pass (unit sample: at
// the same step of the same round), counterbalanced (ABBA): base first in odd passes' odd turns and
// even passes' even ones (unit sample: odd steps swap that), so that neither build always follows
// the other, in a pass, in a configuration's rounds or in a round's passes. Else the one behind,
// alone: a build whose sweep has fewer configurations (an older build's) finishes its pass first,
// and one whose round failed leaves it early.
std::vector<Side*> next_turn(Side& b, Side& n, PaceUnit unit) {
  const bool br = b.state == State::ready, nr = n.state == State::ready;
  const bool together = unit == PaceUnit::sample ? b.at == n.at : b.at.pass == n.at.pass;
  if (br && nr && together) {
    const bool base_first = (b.at.pass + std::max(b.at.turn - 1, 0) + b.at.step) % 2 == 1;
    return base_first ? std::vector<Side*>{&b, &n} : std::vector<Side*>{&n, &b};
  }
  if (br && nr) return {b.at < n.at ? &b : &n};
  if (br) return {&b};
  if (nr) return {&n};
  return {};
}

// The pass the next turn belongs to, or 0 when no build waits.
int pass_ahead(const Side& b, const Side& n) {
  int p = 0;
  for (const Side* s : {&b, &n})
    if (s->state == State::ready && (p == 0 || s->at.pass < p)) p = s->at.pass;
  return p;
}

// Starts a build's child and files its first line.
void start(Side& s, const std::string& role, const std::vector<std::string>& argv, const fs::path& log, PaceUnit unit) {
  s = Side{};
  s.child = std::make_unique<PacedChild>(role, argv, log);
  take(s, s.child->next(), unit);
}

int ab(const AbFlags& f) {
  if (world() != nullptr)
    throw InputError("ab", "under an MPI launcher", "an A/B run alternates two local processes; start it without one");
  for (const auto& a : f.run_args)
    for (const auto flag : kOwnFlags)
      if (a == flag || a.rfind(std::string(flag) + "=", 0) == 0)
        throw InputError(std::string(flag), "given", "`ab` passes it to each build itself");
  check_output_dir("--out", f.out);
  std::vector<NamedPath> outputs{{"--out", fs::path(f.out) / "base.log"}, {"--out", fs::path(f.out) / "new.log"}};
  for (const char* role : {"base", "new"})
    for (const NamedPath& p : reports::sweep_outputs("--out", fs::path(f.out) / role)) outputs.push_back(p);
  check_outputs_apart({{"BASE_BIN", f.base_bin}}, outputs);
  const Build base = probe_base(f.base_bin);
  const Build self{RINGBENCH_VERSION, tool_git_sha()};
  const std::string pair_id = random_pair_id();
  const fs::path out(f.out);
  auto run_args = [&](const std::string& role, const Build& partner, PaceUnit unit) {
    std::vector<std::string> args = f.run_args;
    for (const std::string& a :
         {std::string("--out"), (out / role).string(), std::string("--pace-fd"), std::string("3"),
          std::string("--pair-role"), role, std::string("--pair-id"), pair_id, std::string("--partner-sha"),
          partner.git_sha, std::string("--partner-version"), partner.version})
      args.push_back(a);
    // Unit pass is what builds before --pace-unit did, so it is not named: such a base still runs.
    if (unit != PaceUnit::pass) {
      args.push_back("--pace-unit");
      args.push_back(to_string(unit));
    }
    if (role == "new" && !f.inject_fault_new.empty()) {
      args.push_back("--inject-fault");
      args.push_back(f.inject_fault_new);
    }
    return args;
  };
  PaceUnit unit = parse_pace_unit(f.pace, "--pace");
  check_run_arguments(run_args("new", base, unit));  // this build's rules: bad input is exit 2 before either starts
  for (const char* name : {"base.log", "new.log"}) check_output_file("--out", out / name);
  const bool made_out = !fs::exists(out);
  make_output_dir("--out", out);

  auto command = [](const std::string& bin, const std::vector<std::string>& args) {
    std::vector<std::string> argv{bin, "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  };
  InterruptGuard interrupts;  // a signal ends the pair after the turn that runs, both files written
  // One at a time from the start: each build's start-up (profile, plans) is work on the machine too.
  Side b;
  start(b, "base", command(f.base_bin, run_args("base", self, unit)), out / "base.log", unit);
  // A base from before the unit asked for (it refuses the value, or before --pace-unit the flag):
  // both builds take the finest turns it can.
  while (b.state != State::ready && b.status == kExitBadInput && unit != PaceUnit::pass &&
         last_line_of(out / "base.log").find("--pace-unit") != std::string::npos) {
    const PaceUnit coarser = unit == PaceUnit::sample ? PaceUnit::configuration : PaceUnit::pass;
    print_quietly(stderr, fmt::format("ringbench ab: the base build ({}) predates taking turns by {}; the builds take "
                                      "turns {}\n",
                                      base.git_sha, to_string(unit), turn_phrase(coarser)));
    unit = coarser;
    start(b, "base", command(f.base_bin, run_args("base", self, unit)), out / "base.log", unit);
  }
  if (b.state != State::ready) {
    const std::string last = last_line_of(out / "base.log");
    if (b.status == kExitBadInput) {
      // Refused input leaves nothing behind, as `run`'s does: its line is in the error.
      std::error_code ec;
      fs::remove(out / "base.log", ec);
      if (made_out) fs::remove(out, ec);  // only if still empty
    }
    if (b.status == kExitBadInput && names_own_flag(last))
      throw InputError("BASE_BIN", f.base_bin,
                       fmt::format("predates A/B runs: its `run` refused the flags `ab` passes ({}); compare against "
                                   "its stored results instead",
                                   elide(last, 120)));
    if (b.status == kExitBadInput)
      throw InputError("BASE_BIN", f.base_bin, fmt::format("its `run` refused the options: {}", elide(last, 160)));
    throw Error(fmt::format("the base build ended before its first round ({}); see {}", b.ended,
                            (out / "base.log").string()));
  }
  const fs::path self_bin = fs::read_symlink("/proc/self/exe");
  Side n;
  start(n, "new", command(self_bin.string(), run_args("new", base, unit)), out / "new.log", unit);
  if (n.state != State::ready) {
    stop(b, "the new build did not start");
    if (n.status == kExitBadInput)  // its own input was checked above: what is left is the output folder
      throw InputError("--out", (out / "new").string(),
                       fmt::format("this build's `run` refused it: {}", elide(last_line_of(out / "new.log"), 160)));
    throw Error(fmt::format("the new build ended before its first round ({}); see {}", n.ended,
                            (out / "new.log").string()));
  }

  std::string failure;
  int passes = 0;
  // Under unit configuration a pass is many turns: its line is printed once no build waits in it.
  auto report_pass = [&](int pass) {
    std::vector<std::string> took;
    for (Side* s : {&b, &n})
      if (s->pass_s > 0) took.push_back(fmt::format("{} {:.1f} s", s->child->role(), s->pass_s));
    if (!took.empty())
      print_quietly(stderr, fmt::format("ringbench ab: round {}: {} (turns by {})\n", pass, fmt::join(took, ", "),
                                        to_string(unit)));
    b.pass_s = n.pass_s = 0;
  };
  while (failure.empty() && interrupt_signal() == 0) {
    const std::vector<Side*> turn = next_turn(b, n, unit);
    if (turn.empty()) break;
    const int pass = turn.front()->at.pass;
    passes = std::max(passes, pass);
    const std::string first = turn.front()->child->role();
    std::vector<std::string> took;
    // A signal to the driver ends the pair at the end of this turn, so both builds keep as many.
    for (Side* s : turn) {
      const auto started = std::chrono::steady_clock::now();
      s->child->send("go " + first);
      take(*s, s->child->next(), unit);
      const std::chrono::duration<double> took_s = std::chrono::steady_clock::now() - started;
      s->pass_s += took_s.count();
      took.push_back(fmt::format("{} {:.1f} s", s->child->role(), took_s.count()));
      if (s->state == State::ended) {
        failure = fmt::format("the {} build ended in round {} ({})", s->child->role(), pass, s->ended);
        break;
      }
    }
    if (unit == PaceUnit::pass && !took.empty())
      print_quietly(stderr, fmt::format("ringbench ab: round {}: {}\n", pass, fmt::join(took, ", then ")));
    if (const int ahead = pass_ahead(b, n); unit != PaceUnit::pass && ahead != pass) report_pass(pass);
  }
  if (const int sig = interrupt_signal(); sig != 0) {
    for (Side* s : {&b, &n}) stop(*s, fmt::format("the A/B run was interrupted by {}", signal_text(sig)));
    print_quietly(stderr, fmt::format("ringbench ab: interrupted by {}; what was measured is in {} and {}\n",
                                      signal_text(sig), (out / "base").string(), (out / "new").string()));
    return 128 + sig;
  }
  if (!failure.empty()) {
    for (Side* s : {&b, &n}) stop(*s, failure);
    throw Error(fmt::format("{}; the other build was stopped; what was measured is in {} and {}", failure,
                            (out / "base").string(), (out / "new").string()));
  }
  print_quietly(stderr, fmt::format("ringbench ab: {} rounds; base {} ({}) against new {} ({}), pair {}\n", passes,
                                    base.version, base.git_sha, self.version, self.git_sha, pair_id));
  for (const Side* s : {&b, &n})
    print_quietly(stdout, fmt::format("{}: {}\n", s->child->role(),
                                      fs::absolute(out / s->child->role() / "results.json").string()));
  for (const Side* s : {&b, &n})
    if (s->status != kExitOk && s->status != kExitCheckFailed)
      throw Error(fmt::format("the {} build exited {} after its last round; see {}", s->child->role(), s->status,
                              s->child->log().string()));
  return b.status == kExitOk && n.status == kExitOk ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_ab_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<AbFlags>();
  CLI::App* sub = app.add_subcommand(
      "ab",
      "A/B run: BASE_BIN (another ringbench build) and this build run the same sweep, taking turns round by "
      "round; every other argument (a profile, run's flags) goes to both builds' `run`");
  sub->add_option("base_bin", f->base_bin, "The baseline's ringbench binary")->required();
  sub->add_option("--out", f->out,
                  "Output folder: OUT/base and OUT/new (each a run's --out), OUT/base.log, OUT/new.log")
      ->required();
  sub->add_option("--pace", f->pace,
                  "What one turn is: `sample` (one timed pass; both builds hold the configuration's buffers through "
                  "its round), `configuration` (the builds' round k of one configuration back to back) or `pass` "
                  "(round k of every configuration); a base build that predates the unit gets the finest it speaks")
      ->check(CLI::IsMember({"sample", "configuration", "pass"}))
      ->capture_default_str();
  sub->add_option("--inject-fault-new", f->inject_fault_new,
                  "Testing: `run --inject-fault` for the new build only (a planted regression)")
      ->group("");
  sub->allow_extras();
  sub->callback([f, sub, &action] {
    f->run_args = sub->remaining();
    action = [f] { return ab(*f); };
  });
}

}  // namespace rb::bench
