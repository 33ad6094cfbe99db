// The A/B pacing protocol over a real socketpair: the sweep's side says `ready R` before each pass
// (unit pass), `ready R I` before each configuration's round (unit configuration), or `ready R I 0`
// before the round and `ready R I S` before its S-th timed pass (unit sample) and runs it only on
// `go`; `stop REASON`, any other line, a closed socket or a signal stop it with
// a reason; the order the driver names is what the pairing records.
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/sweep/interrupt.hpp"
#include "bench/sweep/round_pacing.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

// A socketpair: sweep() is the end a RoundPacer owns, driver() the test's.
class Channel {
 public:
  Channel() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds_), 0); }
  ~Channel() { close_driver(); }
  int sweep() const { return fds_[0]; }
  int driver() const { return fds_[1]; }
  void close_driver() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }
  // What the sweep said, as the driver reads it.
  std::string heard() {
    const PaceLine l = read_pace_line(driver(), false);
    return l.kind == PaceLine::Kind::line ? l.text : "(no line)";
  }

 private:
  int fds_[2] = {-1, -1};
};

TEST(RoundPacing, APassRunsOnGoAndTheOrderNamedIsKept) {
  Channel ch;
  RoundPacer pacer(ch.sweep());
  const char* answers[] = {"go base", "go new", "go"};
  for (int round = 1; round <= 3; ++round) {
    ASSERT_TRUE(write_pace_line(ch.driver(), answers[round - 1]));  // answered before asked: it must still wait
    const PaceAnswer a = pacer.before_round(round);
    EXPECT_EQ(a.stop, "") << round;
    EXPECT_EQ(a.signal, 0);
    EXPECT_EQ(ch.heard(), "ready " + std::to_string(round));
  }
  pacer.done();
  EXPECT_EQ(ch.heard(), "done");
  EXPECT_EQ(pacer.first_by_round(), (std::vector<std::string>{"base", "new", ""}));
}

TEST(RoundPacing, UnderUnitPassOnlyAPassesFirstRoundWaits) {
  Channel ch;
  RoundPacer pacer(ch.sweep(), PaceUnit::pass);
  ASSERT_TRUE(write_pace_line(ch.driver(), "go new"));
  ASSERT_TRUE(write_pace_line(ch.driver(), "go base"));
  // Round 1 of three configurations, then round 2 of two: two lines asked, two answers taken.
  for (const int round : {1, 1, 1, 2, 2}) EXPECT_EQ(pacer.before_round(round).stop, "") << round;
  pacer.done();
  EXPECT_EQ(ch.heard(), "ready 1");
  EXPECT_EQ(ch.heard(), "ready 2");
  EXPECT_EQ(ch.heard(), "done");
  EXPECT_EQ(pacer.first_by_round(), (std::vector<std::string>{"new", "base"}));
}

TEST(RoundPacing, UnderUnitConfigurationEveryRoundIsATurnNumberedInItsPass) {
  Channel ch;
  RoundPacer pacer(ch.sweep(), PaceUnit::configuration);
  const int rounds[] = {1, 1, 1, 2, 2, 3};
  const char* answers[] = {"go base", "go new", "go base", "go new", "go base", "go"};
  for (int k = 0; k < 6; ++k) {
    ASSERT_TRUE(write_pace_line(ch.driver(), answers[k]));
    const PaceAnswer a = pacer.before_round(rounds[k]);
    EXPECT_EQ(a.stop, "") << k;
  }
  for (const char* said : {"ready 1 1", "ready 1 2", "ready 1 3", "ready 2 1", "ready 2 2", "ready 3 1"})
    EXPECT_EQ(ch.heard(), said);
  // The pairing keeps each pass's first turn's order: one entry a pass, as under unit pass.
  EXPECT_EQ(pacer.first_by_round(), (std::vector<std::string>{"base", "new", ""}));
}

TEST(RoundPacing, UnderUnitSampleARoundStartsAtStepZeroAndEveryTimedPassIsATurn) {
  Channel ch;
  RoundPacer pacer(ch.sweep(), PaceUnit::sample);
  // Pass 1: two configurations of two timed passes each; pass 2: one of one. Only each pass's first
  // turn's start names the order the pairing keeps.
  for (const char* go :
       {"go new", "go base", "go base", "go base", "go base", "go base", "go base", "go new", "go new"})
    ASSERT_TRUE(write_pace_line(ch.driver(), go));
  EXPECT_EQ(pacer.before_round(1).stop, "");
  EXPECT_EQ(pacer.before_sample(1).stop, "");
  EXPECT_EQ(pacer.before_sample(2).stop, "");
  EXPECT_EQ(pacer.before_round(1).stop, "");
  EXPECT_EQ(pacer.before_sample(1).stop, "");
  EXPECT_EQ(pacer.before_sample(2).stop, "");
  EXPECT_EQ(pacer.before_round(2).stop, "");
  EXPECT_EQ(pacer.before_sample(1).stop, "");
  pacer.done();
  for (const char* said : {"ready 1 1 0", "ready 1 1 1", "ready 1 1 2", "ready 1 2 0", "ready 1 2 1", "ready 1 2 2",
                           "ready 2 1 0", "ready 2 1 1", "done"})
    EXPECT_EQ(ch.heard(), said);
  EXPECT_EQ(pacer.first_by_round(), (std::vector<std::string>{"new", "base"}));
}

TEST(RoundPacing, OtherUnitsTakeTheirTimedPassesWithoutAsking) {
  for (const PaceUnit unit : {PaceUnit::pass, PaceUnit::configuration}) {
    Channel ch;
    RoundPacer pacer(ch.sweep(), unit);
    ASSERT_TRUE(write_pace_line(ch.driver(), "go base"));
    EXPECT_EQ(pacer.before_round(1).stop, "");
    for (int s = 1; s <= 3; ++s) EXPECT_EQ(pacer.before_sample(s).stop, "") << to_string(unit);
    pacer.done();
    EXPECT_EQ(ch.heard(), unit == PaceUnit::pass ? "ready 1" : "ready 1 1");
    EXPECT_EQ(ch.heard(), "done") << to_string(unit);
  }
}

TEST(RoundPacing, ATimedPassStoppedBeforeItRunsSaysWhy) {
  Channel ch;
  RoundPacer pacer(ch.sweep(), PaceUnit::sample);
  ASSERT_TRUE(write_pace_line(ch.driver(), "go base"));
  ASSERT_TRUE(write_pace_line(ch.driver(), "go base"));
  ASSERT_TRUE(write_pace_line(ch.driver(), "stop the new build ended in round 3 (exit 1)"));
  EXPECT_EQ(pacer.before_round(3).stop, "");
  EXPECT_EQ(pacer.before_sample(1).stop, "");
  EXPECT_EQ(pacer.before_sample(2).stop, "stopped by the A/B driver: the new build ended in round 3 (exit 1)");
  for (const char* said : {"ready 3 1 0", "ready 3 1 1", "ready 3 1 2"}) EXPECT_EQ(ch.heard(), said);
}

TEST(RoundPacing, ATurnStoppedMidPassSaysWhichRound) {
  Channel ch;
  RoundPacer pacer(ch.sweep(), PaceUnit::configuration);
  ASSERT_TRUE(write_pace_line(ch.driver(), "go base"));
  ASSERT_TRUE(write_pace_line(ch.driver(), "stop the base build ended in round 2 (exit 1)"));
  EXPECT_EQ(pacer.before_round(2).stop, "");
  const PaceAnswer a = pacer.before_round(2);
  EXPECT_EQ(a.stop, "stopped by the A/B driver: the base build ended in round 2 (exit 1)");
  EXPECT_EQ(ch.heard(), "ready 2 1");
  EXPECT_EQ(ch.heard(), "ready 2 2");
}

TEST(RoundPacing, ThePassWaitsForTheDriver) {
  Channel ch;
  RoundPacer pacer(ch.sweep());
  const auto start = std::chrono::steady_clock::now();
  std::thread driver([&] {
    EXPECT_EQ(ch.heard(), "ready 1");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    write_pace_line(ch.driver(), "go new");
  });
  const PaceAnswer a = pacer.before_round(1);
  driver.join();
  EXPECT_EQ(a.stop, "");
  // Only a lower bound: it returned after the driver's answer, however slow the machine.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  EXPECT_EQ(pacer.first_by_round(), (std::vector<std::string>{"new"}));
}

TEST(RoundPacing, EveryOtherAnswerStopsTheSweepWithItsReason) {
  const struct {
    const char* answer;  // nullptr: the driver closes its end instead
    const char* reason;  // a part of the reason recorded
  } cases[] = {
      {"stop the new build ended in round 2 (exit 1)", "stopped by the A/B driver: the new build ended in round 2"},
      {"gone fishing", "sent 'gone fishing' before round 1, not 'go'"},
      {"go sideways", "sent 'go sideways'"},
      {"Go", "sent 'Go'"},
      {"", "sent '' before round 1"},
      {nullptr, "its pacing socket closed before round 1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.answer ? c.answer : "(closed)");
    Channel ch;
    RoundPacer pacer(ch.sweep());
    if (c.answer)
      ASSERT_TRUE(write_pace_line(ch.driver(), c.answer));
    else
      ch.close_driver();
    const PaceAnswer a = pacer.before_round(1);
    EXPECT_NE(a.stop.find(c.reason), std::string::npos) << a.stop;
    EXPECT_EQ(a.signal, 0);
    EXPECT_TRUE(pacer.first_by_round().empty());
  }
}

TEST(RoundPacing, ALineWithoutEndIsRefusedOnceTooLong) {
  Channel ch;
  RoundPacer pacer(ch.sweep());
  ASSERT_TRUE(write_pace_line(ch.driver(), std::string(5000, 'g')));
  const PaceAnswer a = pacer.before_round(1);
  EXPECT_NE(a.stop.find("a line of over 1024 bytes"), std::string::npos) << a.stop;
}

TEST(RoundPacing, ADriverGoneBeforeTheSweepAsksStopsIt) {
  Channel ch;
  ch.close_driver();
  RoundPacer pacer(ch.sweep());
  const PaceAnswer a = pacer.before_round(2);
  EXPECT_NE(a.stop.find("before round 2"), std::string::npos) << a.stop;
}

TEST(RoundPacing, ASignalWhileWaitingStopsTheSweepAsInterrupted) {
  Channel ch;
  PaceAnswer a;
  {
    InterruptGuard guard;
    RoundPacer pacer(ch.sweep());
    std::thread signaller([&] {
      EXPECT_EQ(ch.heard(), "ready 1");
      std::raise(SIGTERM);  // the guard's handler notes it; the wait sees it within its poll interval
    });
    a = pacer.before_round(1);
    signaller.join();
  }
  InterruptGuard reset;  // a guard starts with no signal noted: later tests in this process see none
  EXPECT_EQ(a.signal, SIGTERM);
  EXPECT_NE(a.stop.find("interrupted by SIGTERM"), std::string::npos) << a.stop;
}

TEST(RoundPacing, ThePairingIsRecordedAsTheFormatSays) {
  Pairing p{"new", "0123456789ab", "0.1.0", "feedbeef", {"base", "", "base"}, PaceUnit::configuration};
  EXPECT_EQ(to_json(p), nlohmann::json::parse(R"({"role": "new", "partner_git_sha": "0123456789ab",
      "partner_version": "0.1.0", "first_by_round": ["base", null, "base"], "pair_id": "feedbeef",
      "unit": "configuration"})"));
  p.unit = PaceUnit::pass;
  EXPECT_EQ(to_json(p).at("unit"), "pass");
  p.unit = PaceUnit::sample;
  EXPECT_EQ(to_json(p).at("unit"), "sample");
}

TEST(RoundPacing, APaceUnitIsReadByItsNameAndAnythingElseNamesTheFlag) {
  for (const PaceUnit u : {PaceUnit::pass, PaceUnit::configuration, PaceUnit::sample})
    EXPECT_EQ(parse_pace_unit(to_string(u), "--pace"), u);
  try {
    parse_pace_unit("round", "--pace-unit");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--pace-unit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("round"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rb::bench
