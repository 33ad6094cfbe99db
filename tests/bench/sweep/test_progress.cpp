// The sweep's console (bench/sweep/progress.hpp) on hand-built records: the noise rule, the mark of a
// noisy row and the one summary after the last, the rate's unit, the ETA's text, the sweep-wide
// counter through skipped, failed, adaptive and stopped configurations, the rows' alignment whatever
// the figures' sizes, and what --quiet and --verbose print. The noise is each record's own, so
// nothing here depends on how loaded the machine is.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "bench/sweep/progress.hpp"
#include "common/flops_unit.hpp"

namespace rb::bench {
namespace {

reports::RunRecord ok_record(double median_ms, double noise_pct, std::int64_t count, bool comm) {
  reports::RunRecord r;
  r.status = RunStatus::ok;
  r.timing.present = true;
  r.timing.median_ms = median_ms;
  r.timing.noise_pct = noise_pct;
  r.timing.count = count;
  r.metrics.present = true;
  r.metrics.attention_tflops = median_ms > 100 ? 1234.5678 : 0.004;
  r.metrics.imbalance = 1.25;
  r.metrics.pass_time_ms = median_ms;
  if (comm) {
    r.metrics.comm_basis = "execution";
    r.metrics.exposed_comm_ms = median_ms / 10;
    r.metrics.overlap_fraction = 0.875;
  } else {
    r.metrics.exposed_comm_ms = 0;
  }
  r.correctness = reports::RecordCorrectness{};
  r.correctness->max_abs_err = 1.5e-7;
  return r;
}

// What a Progress printed into a temporary file.
struct Capture {
  std::FILE* f = std::tmpfile();
  ~Capture() { std::fclose(f); }
  std::string text() const {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
    return s;
  }
};

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t nl; (nl = s.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(s.substr(at, nl - at));
  return out;
}

// The display column of byte offset `i` of `s` ("±" is one column, two bytes).
std::size_t column(const std::string& s, std::size_t i) {
  std::size_t c = 0;
  for (std::size_t k = 0; k < i; ++k) c += (static_cast<unsigned char>(s[k]) & 0xc0) != 0x80;
  return c;
}

ProgressOptions log_options(ConsoleMode mode = ConsoleMode::normal) {
  ProgressOptions o;
  o.mode = mode;
  o.rounds = 2;
  o.terminal = false;
  return o;
}

TEST(Progress, TheNoiseRuleIsTwoStandardErrorsOfADifference) {
  reports::RecordTiming t;
  t.noise_pct = 5.0;
  t.count = 8;
  EXPECT_DOUBLE_EQ(*visible_change_pct(t), 5.0);  // 2 · 5 · sqrt(2/8)
  t.count = 1;
  EXPECT_FALSE(visible_change_pct(t));                             // one sample has no noise to judge
  EXPECT_FALSE(hidden_change_pct(ok_record(1.0, 5.0, 8, false)));  // exactly 5%: compare could see it
  EXPECT_DOUBLE_EQ(hidden_change_pct(ok_record(1.0, 5.1, 8, false)).value_or(0), 5.1);
  EXPECT_FALSE(hidden_change_pct(ok_record(1.0, 20.0, 128, false)));  // 2 · 20 · sqrt(2/128) = 5
  reports::RunRecord failed = ok_record(1.0, 50.0, 8, false);
  failed.status = RunStatus::failed;
  EXPECT_FALSE(hidden_change_pct(failed));
}

TEST(Progress, EtaText) {
  EXPECT_EQ(eta_text(0), "0:00");
  EXPECT_EQ(eta_text(7.4), "0:07");
  EXPECT_EQ(eta_text(754), "12:34");
  EXPECT_EQ(eta_text(3723), "1:02:03");
  EXPECT_EQ(eta_text(-1), "-");
  EXPECT_EQ(eta_text(std::numeric_limits<double>::infinity()), "-");
}

TEST(Progress, TheCounterCountsConfigurationRoundsAcrossTheSweep) {
  Progress p({"a", "b", "c", "d"}, log_options(), nullptr);
  EXPECT_EQ(p.planned(), 8);  // 4 configurations of 2 rounds
  const reports::RunRecord rec = ok_record(1.0, 1.0, 4, false);
  p.start(0, 0, 2);
  p.round(0, 0, 2, rec);
  p.start(1, 0, 1);  // skipped: closes without a round
  p.finish(1, "skipped", reports::RunRecord{}, "why");
  EXPECT_EQ(p.done(), 2);
  EXPECT_EQ(p.planned(), 7);
  p.start(2, 0, 2);
  p.finish(2, "FAILED", reports::RunRecord{}, "it broke");  // fails in its first round
  EXPECT_EQ(p.planned(), 6);
  p.start(3, 0, 0);  // --max-noise: samples on until steady, at least the sweep's rounds
  p.round(3, 0, 0, rec);
  p.start(3, 1, 0);
  p.round(3, 1, 0, rec);
  p.start(3, 2, 0);  // a third round: the plan grows
  EXPECT_EQ(p.planned(), 7);
  p.round(3, 2, 0, rec);
  p.start(0, 1, 2);
  p.finish(0, "ok", rec, timing_detail(rec));
  EXPECT_EQ(p.done(), 7);  // a 2, b 1, c 1, d 3
  p.start(3, 0, 1);        // the sweep stopped: closes with the rounds it ran, without another
  p.finish(3, "ok", rec, "");
  EXPECT_EQ(p.done(), 7);
  EXPECT_EQ(p.planned(), 7);
}

TEST(Progress, RowsAreAlignedWhateverTheirFigures) {
  Capture out;
  {
    Progress p({"S=64 c=1 short", "S=1048576 c=16 a much longer label"}, log_options(), out.f);
    const reports::RunRecord small = ok_record(0.123, 0.5, 4, false), large = ok_record(123456.789, 112.4, 4, true);
    p.start(0, 0, 2);
    p.round(0, 0, 2, small);  // off a terminal: nothing per round
    EXPECT_EQ(out.text(), "");
    p.start(1, 0, 2);
    p.round(1, 0, 2, large);
    p.start(0, 1, 2);  // the second pass: a line for the first
    p.finish(0, "ok", small, timing_detail(small));
    p.start(1, 1, 2);
    p.finish(1, "ok", large, timing_detail(large) + "  (1 of 2 rounds: interrupted)");
    p.end_of_sweep();
  }
  const std::vector<std::string> lines = lines_of(out.text());
  ASSERT_EQ(lines.size(), 5u) << out.text();  // the pass, the header, two rows, the noise summary
  EXPECT_EQ(lines[0].rfind("# [2/4] round 1/2 of every configuration done in ", 0), 0u) << lines[0];
  const std::string& header = lines[1];
  EXPECT_EQ(header.rfind("# k/N", 0), 0u);
  const std::string& a = lines[2];
  const std::string& b = lines[3];
  EXPECT_EQ(a.rfind("[3/4]", 0), 0u) << a;
  EXPECT_EQ(b.rfind("[4/4]", 0), 0u) << b;
  EXPECT_NE(b.find("123456.789"), std::string::npos);
  EXPECT_NE(b.find("±112.4%"), std::string::npos);
  EXPECT_NE(b.find("1234.568"), std::string::npos);
  EXPECT_NE(b.find("10.0%"), std::string::npos);  // exposed: 1/10 of the pass
  EXPECT_NE(b.find("87.5%"), std::string::npos);  // overlap
  EXPECT_NE(a.find(" -  "), std::string::npos);   // no comm: no exposed comm, no overlap
  // Every right-aligned column ends where its name does; the note follows the last column.
  for (const char* name :
       {"median_ms", "noise", "TFLOP/s/rank", "exposed_ms", "exposed%", "overlap", "imbalance", "max_err"}) {
    const std::size_t end = column(header, header.find(name) + std::string(name).size());
    for (const std::string* row : {&a, &b}) {
      // The cell that ends at that column: a non-space there, a space (or the end) after.
      std::size_t byte = 0;
      while (byte < row->size() && column(*row, byte) < end) ++byte;
      ASSERT_LE(byte, row->size()) << name;
      EXPECT_NE((*row)[byte - 1], ' ') << name << "\n" << header << "\n" << *row;
      EXPECT_TRUE(byte == row->size() || (*row)[byte] == ' ') << name << "\n" << *row;
    }
  }
  EXPECT_EQ(column(a, a.find("ok")), column(header, header.find("status")));
  EXPECT_EQ(b.substr(b.size() - std::string("(1 of 2 rounds: interrupted)").size()), "(1 of 2 rounds: interrupted)");
  // The noisy row is marked after its figures, before its note; the quiet one is not.
  EXPECT_NE(b.find("1.50e-07  noisy  (1 of 2 rounds: interrupted)"), std::string::npos) << b;
  EXPECT_EQ(a.find("noisy"), std::string::npos) << a;
  EXPECT_EQ(lines[4].rfind("! 1 of 2 configurations is noisy", 0), 0u) << lines[4];
}

// Every row noisy, as on a loaded machine: each row carries the mark, no line goes under any row,
// and one summary after the last names the count, the worst row and what to do.
TEST(Progress, ASweepOfNoisyRowsPrintsOneSummaryNamingTheCountAndTheWorst) {
  const std::vector<std::string> labels{"S=64 c=1 zigzag", "S=64 c=2 zigzag", "S=64 c=4 zigzag"};
  // Visible changes 2 · noise · sqrt(2 / n): 14.1%, 40.0%, 11.3%; the second is the worst.
  const std::vector<reports::RunRecord> recs{ok_record(1.0, 10.0, 4, false), ok_record(2.0, 20.0, 2, true),
                                             ok_record(3.0, 8.0, 4, true)};
  Capture out;
  {
    Progress p(labels, log_options(), out.f);
    for (int i = 0; i < 3; ++i) {
      p.start(i, 0, 1);
      p.finish(i, "ok", recs[static_cast<std::size_t>(i)], timing_detail(recs[static_cast<std::size_t>(i)]));
    }
    p.end_of_sweep();
  }
  const std::vector<std::string> lines = lines_of(out.text());
  ASSERT_EQ(lines.size(), 5u) << out.text();  // header, three rows, the summary
  for (std::size_t i = 1; i <= 3; ++i) {
    EXPECT_EQ(lines[i].rfind("[", 0), 0u) << lines[i];  // a row, never a line under one
    EXPECT_EQ(lines[i].substr(lines[i].size() - 7), "  noisy") << lines[i];
  }
  EXPECT_EQ(lines[4],
            "! 3 of 3 configurations are noisy: the noise hides a 5% change from compare. The worst, S=64 c=2 zigzag: "
            "noise ±20.0% over 2 samples (the smallest change compare could see: 40.0%). Take more samples "
            "(--repeats, --rounds, --max-noise) or quiet the machine");
}

TEST(Progress, AQuietSweepPrintsNoSummaryAndQuietPrintsNone) {
  const reports::RunRecord steady = ok_record(1.0, 1.0, 8, false), noisy = ok_record(1.0, 50.0, 8, false);
  Capture calm, quiet;
  {
    Progress p({"a", "b"}, log_options(), calm.f);
    for (int i = 0; i < 2; ++i) {
      p.start(i, 0, 1);
      p.finish(i, "ok", steady, timing_detail(steady));
    }
    p.end_of_sweep();
  }
  {
    Progress p({"a"}, log_options(ConsoleMode::quiet), quiet.f);  // --quiet: no rows, so no summary
    p.start(0, 0, 1);
    p.finish(0, "ok", noisy, timing_detail(noisy));
    p.end_of_sweep();
  }
  const std::vector<std::string> lines = lines_of(calm.text());
  ASSERT_EQ(lines.size(), 3u) << calm.text();  // header and two rows
  EXPECT_EQ(calm.text().find("noisy"), std::string::npos);
  EXPECT_EQ(calm.text().find('!'), std::string::npos);
  EXPECT_EQ(quiet.text(), "");
}

// The cpu backend's rates read in GFLOP/s, chosen before the first row: 0.004 TFLOP/s, which to
// three decimals hid every difference, reads 4.000; the header names the unit.
TEST(Progress, TheCpuBackendsRatesReadInGflops) {
  reports::RunRecord rec = ok_record(1.0, 1.0, 8, false);
  rec.config.backend = "cpu";
  rec.metrics.attention_tflops = 0.004;
  rec.metrics.attention_tflops_slowest_rank = 0.0035;
  Capture out;
  {
    ProgressOptions o = log_options();
    o.rate_unit = flops_unit("cpu");
    Progress p({"S=64 c=1 cpu"}, o, out.f);
    p.start(0, 0, 1);
    p.finish(0, "ok", rec, timing_detail(rec));
  }
  const std::vector<std::string> lines = lines_of(out.text());
  ASSERT_EQ(lines.size(), 2u) << out.text();
  EXPECT_NE(lines[0].find("GFLOP/s/rank"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("TFLOP"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("  4.000  "), std::string::npos) << lines[1];
  EXPECT_NE(timing_detail(rec).find("4.000 GFLOP/s per rank (slowest rank 3.500)"), std::string::npos)
      << timing_detail(rec);
  rec.config.backend = "cuda";  // a GPU's stay in TFLOP/s
  EXPECT_NE(timing_detail(rec).find("0.004 TFLOP/s per GPU"), std::string::npos) << timing_detail(rec);
}

TEST(Progress, TheTerminalRewritesALiveRowAndTrimsItToTheWidth) {
  Capture out;
  {
    ProgressOptions o = log_options();
    o.terminal = true;
    o.width = 40;
    Progress p({"S=64 c=2 zigzag ring Hq=2 Hkv=1 D=8 causal float64 cpu/local"}, o, out.f);
    const reports::RunRecord rec = ok_record(1.0, 1.0, 4, true);
    p.start(0, 0, 2);
    p.round(0, 0, 2, rec);
    p.start(0, 1, 2);
    p.finish(0, "ok", rec, timing_detail(rec));
  }
  const std::string s = out.text();
  // Header, then each live row after a return and erase, never ending a line, then the kept row.
  std::vector<std::string> parts;
  for (std::size_t at = 0, next; at < s.size(); at = next + 4) {
    next = s.find("\r\033[K", at);
    if (next == std::string::npos) next = s.size();
    parts.push_back(s.substr(at, next - at));
  }
  ASSERT_GE(parts.size(), 5u) << s;
  EXPECT_EQ(parts[0].rfind("# k/N", 0), 0u);
  for (std::size_t i = 1; i + 1 < parts.size(); ++i) {
    EXPECT_LE(column(parts[i], parts[i].size()), 39u) << parts[i];
    EXPECT_EQ(parts[i].find('\n'), std::string::npos);
  }
  EXPECT_NE(s.find("[0/2]"), std::string::npos);
  const std::string& kept = parts.back();
  EXPECT_EQ(kept.rfind("[2/2]", 0), 0u) << kept;
  EXPECT_GT(kept.size(), 40u);  // a kept row is whole
  EXPECT_EQ(kept.back(), '\n');
}

TEST(Progress, AnAliasRowNamesItsConfigurationAndIsNeitherMarkedNorCounted) {
  Capture out;
  {
    Progress p({"S=64 c=1 contiguous", "S=64 c=1 zigzag"}, log_options(), out.f);
    const reports::RunRecord noisy = ok_record(1.0, 50.0, 4, false);
    p.start(0, 0, 1);
    p.finish(0, "ok", noisy, timing_detail(noisy));
    p.start(1, 0, 1);
    p.finish(1, "ok", noisy, "= S=64 c=1 contiguous (c = 1: the same computation)");
    p.end_of_sweep();
  }
  const std::vector<std::string> lines = lines_of(out.text());
  ASSERT_EQ(lines.size(), 4u) << out.text();  // header, row, the alias's row, the summary
  EXPECT_NE(lines[1].find("1.50e-07  noisy"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("1.50e-07  = S=64 c=1 contiguous (c = 1: the same computation)"), std::string::npos)
      << lines[2];
  EXPECT_EQ(lines[2].find("noisy"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3].rfind("! 1 of 1 configuration is noisy", 0), 0u) << lines[3];  // the alias counted once
}

TEST(Progress, QuietPrintsOnlyFailuresAndVerboseAddsTheRoundLines) {
  const reports::RunRecord rec = ok_record(1.0, 1.0, 4, false);
  Capture quiet, verbose;
  for (auto [mode, cap] : {std::pair{ConsoleMode::quiet, &quiet}, std::pair{ConsoleMode::verbose, &verbose}}) {
    Progress p({"one", "two"}, log_options(mode), cap->f);
    p.start(0, 0, 2);
    p.round(0, 0, 2, rec);
    p.start(1, 0, 2);
    p.finish(1, "FAILED", reports::RunRecord{}, "cpu executor: it broke");
    p.start(0, 1, 2);
    p.finish(0, "ok", rec, timing_detail(rec));
  }
  EXPECT_EQ(quiet.text(), "ringbench: FAILED two: cpu executor: it broke\n");
  const std::vector<std::string> v = lines_of(verbose.text());
  ASSERT_EQ(v.size(), 5u) << verbose.text();
  EXPECT_EQ(v[0].rfind("[1/2] r1/2    one  median 1.000 ms ±1.0%  0.004 TFLOP/s per rank", 0), 0u) << v[0];
  EXPECT_EQ(v[1].rfind("# k/N", 0), 0u);
  EXPECT_NE(v[2].find("FAILED     cpu executor: it broke"), std::string::npos) << v[2];
  EXPECT_EQ(v[3].rfind("# [2/3] round 1/2", 0), 0u) << v[3];
  EXPECT_EQ(v[4].rfind("[3/3]", 0), 0u) << v[4];
}

}  // namespace
}  // namespace rb::bench
