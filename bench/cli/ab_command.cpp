// `ringbench ab BASE_BIN [PROFILE.json] [run flags] --out DIR`: an A/B run. BASE_BIN (another
// ringbench build) and this build run the same sweep as two `run` children, DIR/base and DIR/new,
// and take turns (bench/sweep/round_pacing.hpp): one timed pass at a time (--pace sample, the
// default), one configuration's round at a time (--pace configuration), or one pass of rounds (--pace
// pass), counterbalanced ABBA; a base that predates the unit asked for gets the finest it speaks. So
// only one build measures at any moment, and a burst or a drift on the machine lands on both alike;
// by sample, the two builds' passes are next to each other, closer than the machine's speed drifts
// on a shared host (docs/compare.md). Each results.json records the pairing.
//
// The driver holds its folder: DIR's lock for the whole pair (a second `ab` into DIR is refused
// before it touches a file), neither DIR/base nor DIR/new held by another ringbench before either
// build starts, each build its own --dump folder. Every wait for a build has a deadline, a signal
// ends the pair at any point with both builds ended, and a build that wrote files is never
// reported as refused input (exit 2 says nothing was written).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include "bench/cli/base_build.hpp"
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

// What `ab` passes to each build itself; given among the run options they would clash.
constexpr std::string_view kOwnFlags[] = {"--pace-fd", "--pace-unit",   "--pair-role",
                                          "--pair-id", "--partner-sha", "--partner-version"};

// Where the refusal of an older build names a flag `ab` passed: it predates A/B runs.
bool names_own_flag(const std::string& line) {
  for (const auto flag : kOwnFlags)
    if (line.find(flag) != std::string::npos) return true;
  return false;
}

std::string random_pair_id() {
  std::random_device rd;
  std::uniform_int_distribution<unsigned> digit(0, 15);
  std::string id;
  for (int i = 0; i < 16; ++i) id.push_back("0123456789abcdef"[digit(rd)]);
  return id;
}

// The deadlines of the driver's waits for a build (paced_child.hpp ends a build that misses one).
// Start-up (its profile, plans and machine probe) and writing its files are not measured work;
// a turn is, and is bounded by the builds' own --timeout where one is given.
constexpr std::chrono::seconds kStartLimit{600};  // from its start to its first turn
constexpr std::chrono::seconds kFilesLimit{600};  // from its last turn, or a stop, to its exit
constexpr std::chrono::seconds kTurnMargin{60};   // a turn beyond --timeout: its records, traces
constexpr std::chrono::seconds kSignalGrace{30};  // the turn that runs when a signal arrives

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
  int status = 0;            // its exit status, once done or ended
  std::string ended;         // how it ended, when it ended before its last turn
  double pass_s = 0;         // time its turns of the pass being reported took
  bool interrupted = false;  // a signal to the driver ended it before its first turn
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
// turn out of order, silence past its deadline included, ends it).
void take(Side& s, const Heard& line, PaceUnit unit, const std::string& overdue = "") {
  if (line.kind == Heard::Kind::line && next_ready(line.text, unit, s.at, s.at)) return;
  if (line.kind == Heard::Kind::line && line.text == "done" && s.at.pass > 0) {
    s.state = State::done;
    s.status = s.child->wait(kFilesLimit);  // it writes results.json first: nothing else runs meanwhile
    return;
  }
  s.state = State::ended;
  s.status = line.kind == Heard::Kind::timed_out ? s.child->end(overdue) : s.child->wait(kFilesLimit);
  const std::string said = line.kind == Heard::Kind::line ? fmt::format(", after saying '{}'", elide(line.text, 60))
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
  s.status = s.child->wait(kFilesLimit);
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

// Starts a build's child and files its first line, waiting at most kStartLimit, and no longer than a
// signal to the driver: the build is then ended (it stops as interrupted).
void start(Side& s, const std::string& role, const std::vector<std::string>& argv, const fs::path& log, PaceUnit unit) {
  s = Side{};
  s.child = std::make_unique<PacedChild>(role, argv, log);
  const Heard first = s.child->next(PacedChild::Clock::now() + kStartLimit, true);
  if (first.kind == Heard::Kind::interrupted) {
    s.interrupted = true;
    s.state = State::ended;
    s.status = s.child->end(fmt::format("the A/B run was interrupted by {}", signal_text(interrupt_signal())));
    return;
  }
  take(s, first, unit, fmt::format("it did not reach its first turn within {} s", kStartLimit.count()));
}

// A build's answer to its turn: within the turn's deadline, and within kSignalGrace of a signal to
// the driver, which lets the turn end so that both builds keep as many rounds.
Heard await_turn(PacedChild& child, std::optional<std::chrono::seconds> limit, std::string& overdue) {
  const auto started = PacedChild::Clock::now();
  std::optional<PacedChild::Clock::time_point> deadline;
  if (limit) deadline = started + *limit;
  overdue = limit ? fmt::format("its turn did not end within {} s (--timeout and {} s)", limit->count(),
                                kTurnMargin.count())
                  : "";
  Heard h = child.next(deadline, true);
  if (h.kind != Heard::Kind::interrupted) return h;
  const auto grace = PacedChild::Clock::now() + kSignalGrace;
  if (!deadline || grace < *deadline) {
    deadline = grace;
    overdue = fmt::format("the A/B run was interrupted by {}, and its turn did not end within {} s",
                          signal_text(interrupt_signal()), kSignalGrace.count());
  }
  return child.next(deadline, false);
}

// How long a turn may take: one configuration's --timeout and a margin (unit pass: a turn is round
// k of every configuration, which no one limit bounds); none without --timeout, as `run` has none.
std::optional<std::chrono::seconds> turn_limit(const std::vector<std::string>& run_args, PaceUnit unit) {
  if (unit == PaceUnit::pass) return std::nullopt;
  std::optional<double> timeout;
  for (std::size_t i = 0; i < run_args.size(); ++i) {
    std::string value;
    if (run_args[i] == "--timeout" && i + 1 < run_args.size()) value = run_args[i + 1];
    if (run_args[i].rfind("--timeout=", 0) == 0) value = run_args[i].substr(10);
    if (!value.empty()) timeout = std::stod(value);  // checked by run's rules before this is asked
  }
  if (!timeout || *timeout <= 0) return std::nullopt;
  return std::chrono::seconds(static_cast<long long>(std::ceil(*timeout))) + kTurnMargin;
}

// Whether another process holds `dir`'s lock (common/output_file.hpp's OutputDirLock: a sweep
// writing there). Taken and let go at once.
bool held_elsewhere(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

// What a folder holds, to tell whether a build wrote there: each entry's name, size and time (an
// earlier pair's files may be there already).
std::vector<std::string> folder_stamp(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    std::error_code e2;
    const auto size = fs::is_regular_file(p, e2) ? fs::file_size(p, e2) : 0;
    const auto time = fs::last_write_time(p, e2).time_since_epoch().count();
    out.push_back(fmt::format("{} {} {}", p.filename().string(), size, time));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The run options with each --dump folder DIR replaced by DIR/ROLE: the builds dump the same
// configurations under the same names, and one folder had the second replace the first's files.
std::vector<std::string> own_dump(std::vector<std::string> args, const std::string& role) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--dump" && i + 1 < args.size())
      args[i + 1] = (fs::path(args[i + 1]) / role).string();
    else if (args[i].rfind("--dump=", 0) == 0)
      args[i] = "--dump=" + (fs::path(args[i].substr(7)) / role).string();
  }
  return args;
}

int ab(const AbFlags& f) {
  // From the first moment: a signal while BASE_BIN --version runs or a build starts ends what was
  // started, and no further build starts.
  InterruptGuard interrupts;
  if (world() != nullptr)
    throw InputError("ab", "under an MPI launcher", "an A/B run alternates two local processes; start it without one");
  for (const auto& a : f.run_args)
    for (const auto flag : kOwnFlags)
      if (a == flag || a.rfind(std::string(flag) + "=", 0) == 0)
        throw InputError(std::string(flag), "given", "`ab` passes it to each build itself");
  check_output_dir("--out", f.out);
  const fs::path out(f.out);
  // Outputs against inputs, the one rule of common/output_file.hpp.
  std::vector<NamedPath> outputs{{"--out", out / "base.log"}, {"--out", out / "new.log"}};
  for (const char* role : {"base", "new"})
    for (const NamedPath& p : reports::sweep_outputs("--out", out / role)) outputs.push_back(p);
  check_outputs_apart({{"BASE_BIN", f.base_bin}}, outputs);
  auto interrupted_before = [&](const std::string& what) {
    const int sig = interrupt_signal();
    print_quietly(stderr, fmt::format("ringbench ab: interrupted by {} {}\n", signal_text(sig), what));
    return 128 + sig;
  };
  const std::optional<Build> probed = probe_base(f.base_bin);
  if (!probed) return interrupted_before("while BASE_BIN --version ran; no build started");
  const Build& base = *probed;
  const Build self{RINGBENCH_VERSION, tool_git_sha()};
  const std::string pair_id = random_pair_id();
  auto run_args = [&](const std::string& role, const Build& partner, PaceUnit unit) {
    std::vector<std::string> args = own_dump(f.run_args, role);
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
  // This build's rules, for both builds' options: bad input is exit 2 before either starts.
  check_run_arguments(run_args("base", base, unit));
  check_run_arguments(run_args("new", base, unit));
  for (const char* role : {"base", "new"}) {
    check_output_dir("--out", out / role);
    check_output_file("--out", out / (std::string(role) + ".log"));
  }
  // The pair's folder is this driver's from here to its end, before any file in it is opened: a
  // second `ab` into it deleted the first's log and blamed the base build for the lock it met.
  const bool made_out = !fs::exists(out);
  const OutputDirLock lock("--out", out);
  for (const char* role : {"base", "new"})
    if (held_elsewhere(out / role))
      throw InputError("--out", (out / role).string(),
                       "another ringbench is writing into this folder (it holds the folder's lock); wait for it or "
                       "choose another folder");
  const std::optional<std::chrono::seconds> limit = turn_limit(f.run_args, unit);

  auto command = [](const std::string& bin, const std::vector<std::string>& args) {
    std::vector<std::string> argv{bin, "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  };
  const std::vector<std::string> base_before = folder_stamp(out / "base");
  const bool made_base = !fs::exists(out / "base");
  auto wrote = [&] { return folder_stamp(out / "base") != base_before; };
  auto written = [&] {
    return wrote() ? fmt::format("; what it wrote is in {}", (out / "base").string()) : std::string();
  };
  // One at a time from the start: each build's start-up (profile, plans) is work on the machine too.
  Side b;
  start(b, "base", command(f.base_bin, run_args("base", self, unit)), out / "base.log", unit);
  // A base from before the unit asked for (it refuses the value, or before --pace-unit the flag):
  // both builds take the finest turns it can.
  while (b.state != State::ready && !b.interrupted && b.status == kExitBadInput && unit != PaceUnit::pass && !wrote() &&
         last_line_of(out / "base.log").find("--pace-unit") != std::string::npos) {
    const PaceUnit coarser = unit == PaceUnit::sample ? PaceUnit::configuration : PaceUnit::pass;
    print_quietly(stderr, fmt::format("ringbench ab: the base build ({}) predates taking turns by {}; the builds take "
                                      "turns {}\n",
                                      base.git_sha, to_string(unit), turn_phrase(coarser)));
    unit = coarser;
    start(b, "base", command(f.base_bin, run_args("base", self, unit)), out / "base.log", unit);
  }
  if (b.interrupted) return interrupted_before(fmt::format("before the base build's first round{}", written()));
  if (b.state != State::ready) {
    const std::string last = last_line_of(out / "base.log");
    // Refused input leaves nothing behind, as `run`'s does: its line is in the error. A build that
    // wrote files did more than refuse: exit 1, naming what it left.
    if (b.status == kExitBadInput && !wrote()) {
      std::error_code ec;
      fs::remove(out / "base.log", ec);
      if (made_base) fs::remove(out / "base", ec);  // only if still empty
      if (made_out) fs::remove(out, ec);
      if (names_own_flag(last))
        throw InputError("BASE_BIN", f.base_bin,
                         fmt::format("predates A/B runs: its `run` refused the flags `ab` passes ({}); compare against "
                                     "its stored results instead",
                                     elide(last, 120)));
      throw InputError("BASE_BIN", f.base_bin, fmt::format("its `run` refused the options: {}", elide(last, 160)));
    }
    throw Error(fmt::format("the base build ended before its first round ({}); see {}{}", b.ended,
                            (out / "base.log").string(), written()));
  }
  const fs::path self_bin = fs::read_symlink("/proc/self/exe");
  Side n;
  if (interrupt_signal() == 0)
    start(n, "new", command(self_bin.string(), run_args("new", base, unit)), out / "new.log", unit);
  if (interrupt_signal() != 0) {
    const std::string why = fmt::format("the A/B run was interrupted by {}", signal_text(interrupt_signal()));
    stop(b, why);
    return interrupted_before(fmt::format("before the pair's first round; the base build was stopped{}", written()));
  }
  if (n.state != State::ready) {
    // Its options were checked above, and its folder: the base build has started, and stopped, so
    // files were written; never exit 2.
    stop(b, "the new build did not start");
    throw Error(fmt::format("the new build ended before its first round ({}); see {}; the base build was stopped{}",
                            n.ended, (out / "new.log").string(), written()));
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
      std::string overdue;
      const Heard answer = await_turn(*s->child, limit, overdue);
      take(*s, answer, unit, overdue);
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
  // Each build's results, or the pair is no pair: a build that said it was done and exited 0
  // without them passed the pair.
  for (const Side* s : {&b, &n}) {
    const fs::path results = out / s->child->role() / "results.json";
    std::error_code ec;
    if (!fs::is_regular_file(results, ec) || fs::file_size(results, ec) == 0 || ec)
      throw Error(fmt::format("the {} build exited {} after its last round but wrote no results: {} {}; see {}",
                              s->child->role(), s->status, results.string(),
                              fs::exists(results, ec) ? "is empty or not a file" : "does not exist",
                              s->child->log().string()));
  }
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
