// The reader holds a results file's values to what the schema says of the file's own version and to
// what a writer writes (reports/results/results_values.hpp): timestamps, enums by version (a newer
// minor's values read as unknown), every figure finite and in range, and every count a reader sizes
// something by within the writer's caps. Each case edits one field of a real sweep's file (the
// golden test's stored input) and expects the one JSON path in the error.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "common/error.hpp"
#include "reports/results/record_timing.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_values.hpp"
#include "results_refusal.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

const std::filesystem::path kValuesSource(RINGBENCH_SOURCE_DIR);

// A real cpu sweep's results.json (2.2.0), given the header fields of the current version.
json golden() {
  static const json doc = [] {
    json d = json::parse(std::ifstream(kValuesSource / "tests/data/golden/inputs/base.json"));
    d["run_time"] = {{"started_utc", "2026-12-02T10:38:21Z"}, {"finished_utc", "2026-12-02T10:40:00Z"}};
    return d;
  }();
  return doc;
}

std::string where_of(const json& doc) { return test::refusal_where(doc); }

json with(const std::string& version, std::initializer_list<std::pair<const char*, json>> edits) {
  json doc = golden();
  doc["schema_version"] = version;
  for (auto& r : doc["runs"]) r["schema_version"] = version;
  for (const auto& [pointer, value] : edits) doc[json::json_pointer(pointer)] = value;
  return doc;
}

json pairing(const std::string& unit) {
  return {{"role", "base"},
          {"partner_git_sha", "abc"},
          {"partner_version", "0.1.0"},
          {"first_by_round", {"base", nullptr}},
          {"pair_id", "p1"},
          {"unit", unit}};
}

TEST(ResultsValues, TheGoldenInputIsAccepted) { EXPECT_EQ(where_of(with("2.8.0", {})), "(accepted)"); }

TEST(ResultsValues, TimestampsAreRealUtcTimesAndTheEndIsNotBeforeTheStart) {
  const struct {
    const char* pointer;
    const char* value;
  } refused[] = {
      {"/run_time/started_utc", "yesterday"},
      {"/run_time/started_utc", "2026-12-02 10:38:21Z"},
      {"/run_time/started_utc", "2026-13-02T10:38:21Z"},
      {"/run_time/started_utc", "2026-02-29T10:38:21Z"},  // 2026 is no leap year
      {"/run_time/started_utc", "9999-12-31T24:00:00Z"},
      {"/run_time/finished_utc", "2026-12-02T10:38:21+01:00"},
      {"/run_time/finished_utc", "2026-12-01T23:59:59Z"},  // before the start
  };
  for (const auto& c : refused)
    EXPECT_EQ(where_of(with("2.8.0", {{c.pointer, c.value}})), std::string("f.json: ") + c.pointer) << c.value;
  EXPECT_EQ(where_of(with("2.8.0", {{"/run_time/started_utc", "2024-02-29T00:00:00Z"}})), "(accepted)");  // a leap day
  EXPECT_TRUE(is_utc_timestamp("2024-02-29T23:59:60Z"));
  EXPECT_FALSE(is_utc_timestamp("2026-12-02T10:38:21"));
}

TEST(ResultsValues, AnEnumTakesTheValuesOfTheFilesOwnVersion) {
  // pairing.unit: pass and configuration came in 2.7.0, sample in 2.8.0.
  EXPECT_EQ(where_of(with("2.8.0", {{"/pairing", pairing("sample")}})), "(accepted)");
  EXPECT_EQ(where_of(with("2.7.0", {{"/pairing", pairing("sample")}})), "f.json: /pairing/unit");
  EXPECT_EQ(where_of(with("2.7.0", {{"/pairing", pairing("configuration")}})), "(accepted)");
  EXPECT_EQ(where_of(with("2.8.0", {{"/pairing", pairing("Sample")}})), "f.json: /pairing/unit");
  json bad_role = pairing("pass");
  bad_role["role"] = "boss";
  EXPECT_EQ(where_of(with("2.8.0", {{"/pairing", bad_role}})), "f.json: /pairing/role");
  bad_role = pairing("pass");
  bad_role["first_by_round"] = {"base", "old"};
  EXPECT_EQ(where_of(with("2.8.0", {{"/pairing", bad_role}})), "f.json: /pairing/first_by_round/1");
  bad_role = pairing("pass");
  bad_role["pair_id"] = "";
  EXPECT_EQ(where_of(with("2.8.0", {{"/pairing", bad_role}})), "f.json: /pairing/pair_id");
  // A record's own version decides for its fields: ring-bidirectional came in 1.2.0, cudnn in 2.1.0.
  EXPECT_EQ(where_of(with("2.8.0", {{"/runs/0/config/split", "diagonal"}})), "f.json: /runs/0/config/split");
  EXPECT_EQ(where_of(with("2.8.0", {{"/runs/0/config/kernel", "flash3"}})), "f.json: /runs/0/config/kernel");
  EXPECT_EQ(where_of(with("2.0.0", {{"/runs/0/config/kernel", "cudnn"}})), "f.json: /runs/0/config/kernel");
  EXPECT_EQ(where_of(with("2.8.0", {{"/runs/0/timing/cpu_binding", "cores"}})), "f.json: /runs/0/timing/cpu_binding");
  EXPECT_EQ(where_of(with("2.8.0", {{"/runs/0/timeline/intervals/0/kind", "magic"}})),
            "f.json: /runs/0/timeline/intervals/0/kind");
  EXPECT_EQ(where_of(with("2.8.0", {{"/runs/0/config/id", ""}})), "f.json: /runs/0/config/id");
  // ulysses and hybrid came in 2.11.0.
  for (const char* v : {"ulysses", "hybrid"}) {
    EXPECT_EQ(where_of(with("2.10.0", {{"/runs/4/config/variant", v}})), "f.json: /runs/4/config/variant") << v;
    EXPECT_EQ(where_of(with("2.11.0", {{"/runs/4/config/variant", v}, {"/runs/4/config/ulysses_degree", 2}})),
              "(accepted)")
        << v;
  }
}

// A head exchange's group tiles the run's c ranks (run 4 is at c = 2; made a hybrid, whose id names U).
TEST(ResultsValues, TheUlyssesDegreeDividesTheRunsC) {
  const auto hybrid = [](json u, std::initializer_list<std::pair<const char*, json>> more = {}) {
    json doc = with("2.11.0", {{"/runs/4/config/variant", "hybrid"}, {"/runs/4/config/ulysses_degree", std::move(u)}});
    for (const auto& [pointer, value] : more) doc[json::json_pointer(pointer)] = value;
    return doc;
  };
  EXPECT_EQ(where_of(hybrid(3)), "f.json: /runs/4/config/ulysses_degree");
  EXPECT_EQ(where_of(hybrid(0)), "f.json: /runs/4/config/ulysses_degree");
  EXPECT_EQ(where_of(hybrid(1)), "(accepted)");
  // A skipped configuration records what was asked, the broken rule among it.
  EXPECT_EQ(where_of(hybrid(3, {{"/runs/4/status", "skipped"}, {"/runs/4/reason", "U divides c"}})), "(accepted)");
}

TEST(ResultsValues, ANewerMinorVersionsValuesAreReadAsUnknown) {
  EXPECT_EQ(where_of(with("2.99.0", {{"/pairing", pairing("by-the-moon")}})), "(accepted)");
  EXPECT_EQ(where_of(with("2.99.0", {{"/runs/0/config/split", "diagonal"}})), "(accepted)");
  // A newer minor changes no range: a negative time is no measurement in any version.
  EXPECT_EQ(where_of(with("2.99.0", {{"/runs/0/metrics/comm_time_ms", -1}})), "f.json: /runs/0/metrics/comm_time_ms");
}

TEST(ResultsValues, EveryFigureIsFiniteAndInItsRange) {
  const double inf = std::numeric_limits<double>::infinity();
  const struct {
    const char* pointer;
    json value;
  } refused[] = {
      {"/runs/0/metrics/attention_tflops", -1.0},
      {"/runs/0/metrics/attention_tflops", inf},
      {"/runs/0/metrics/comm_bandwidth_gbyte_per_s", -0.5},
      {"/runs/0/metrics/per_rank/0/attention_tflops", -2.0},
      {"/runs/0/metrics/per_rank/0/comm_time_ms", -1e-9},
      {"/runs/0/metrics/overlap_fraction", 1.5},
      {"/runs/0/metrics/imbalance", 0.5},
      {"/runs/0/plan/flops", -1.0},
      {"/runs/0/correctness/max_abs_err", -1.0},
      {"/runs/0/timing/machine_probe_ms/0", -3.0},
      {"/runs/0/model/pass_ms", inf},  // no field at all may hold what JSON cannot
      {"/runs/0/config/repeats", 0},
      {"/runs/0/config/link_gbps", -1},
  };
  for (const auto& c : refused)
    EXPECT_EQ(where_of(with("2.8.0", {{c.pointer, c.value}})), std::string("f.json: ") + c.pointer) << c.value;
  // Zero is a figure the schema allows; the fleet names a node that reports it (tests/reports/fleet).
  EXPECT_EQ(where_of(with("2.8.0", {{"/runs/0/metrics/attention_tflops", 0.0}})), "(accepted)");
}

TEST(ResultsValues, CountsAreHeldToTheWritersCaps) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  const struct {
    const char* pointer;
    json value;
    const char* where;
  } refused[] = {
      {"/runs/0/config/cp", 1 << 21, "/runs/0/config/cp"},  // a report drew a bar per rank of it
      {"/runs/0/config/seq", std::int64_t{1} << 41, "/runs/0/config/seq"},
      {"/runs/0/config/heads", std::int64_t{1} << 32, "/runs/0/config/heads"},
      {"/runs/0/timing/rounds", 2000000, "/runs/0/timing/rounds"},
      // The int64 sum of these wrapped back to the samples' count, and compare read past them.
      {"/runs/0/timing/round_counts", json::array({big, big, 2}), "/runs/0/timing/round_counts/0"},
      {"/runs/0/timing/round_counts", json::array({1, 2, 99}), "/runs/0/timing/round_counts/2"},
      {"/runs/0/timing/round_counts/0", -1, "/runs/0/timing/round_counts/0"},
      {"/runs/0/metrics/per_rank/0/rank", 7, "/runs/0/metrics/per_rank/0/rank"},
      {"/runs/0/placement/0/rank", 7, "/runs/0/placement/0/rank"},
      {"/runs/0/timeline/intervals/0/rank", 7, "/runs/0/timeline/intervals/0/rank"},
  };
  for (const auto& c : refused)
    EXPECT_EQ(where_of(with("2.8.0", {{c.pointer, c.value}})), std::string("f.json: ") + c.where) << c.pointer;
  // The plan lists every rank of c once: a crafted c beyond it is refused, whatever else the run holds.
  json doc = with("2.8.0", {});
  std::size_t i = 0;
  while (doc["runs"][i]["config"]["cp"] != 2) ++i;
  doc["runs"][i]["config"]["cp"] = 1 << 20;
  EXPECT_EQ(where_of(doc), "f.json: /runs/" + std::to_string(i) + "/plan/per_rank");
}

// Packed documents (2.12.0): doc-zigzag is a split of 2.12.0; each length is a token count; the lengths
// and the padding make up seq (run 0 of the golden input has S = 256).
TEST(ResultsValues, DocumentsMakeUpTheSequence) {
  auto packed = [](const std::string& version, json lengths, json padding) {
    return with(version, {{"/runs/0/config/documents", "100+156"},
                          {"/runs/0/config/document_lengths", std::move(lengths)},
                          {"/runs/0/config/padding_tokens", std::move(padding)}});
  };
  EXPECT_EQ(where_of(packed("2.12.0", {100, 156}, 0)), "(accepted)");
  json padded = packed("2.12.0", {100, 150}, 6);
  EXPECT_EQ(where_of(padded), "f.json: /runs/0/config/padding_tokens");  // only doc-zigzag pads
  padded["runs"][0]["config"]["split"] = "doc-zigzag";
  EXPECT_EQ(where_of(padded), "(accepted)");
  EXPECT_EQ(where_of(packed("2.12.0", {100, 150}, 0)), "f.json: /runs/0/config/document_lengths");
  EXPECT_EQ(where_of(packed("2.12.0", {100, 0, 156}, 0)), "f.json: /runs/0/config/document_lengths/1");
  EXPECT_EQ(where_of(packed("2.12.0", {100, 156}, -4)), "f.json: /runs/0/config/padding_tokens");
  EXPECT_EQ(where_of(with("2.12.0", {{"/runs/0/config/split", "doc-zigzag"}})), "(accepted)");
  EXPECT_EQ(where_of(with("2.10.0", {{"/runs/0/config/split", "doc-zigzag"}})), "f.json: /runs/0/config/split");
}

TEST(ResultsValues, CraftedRoundCountsNeverSplitPastTheSamples) {
  RecordTiming t;
  t.samples_ms = {1, 2, 3};
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  t.round_counts = {big, big, 2};  // sums to 3 when it wraps
  t.rounds = 3;
  const auto rounds = t.rounds_of_samples();
  std::size_t n = 0;
  for (const auto& r : rounds) n += r.size();
  EXPECT_EQ(n, 3u);  // the even split, never past the samples
  t.round_counts = {1, 2};
  EXPECT_EQ(t.rounds_of_samples(), (std::vector<std::vector<double>>{{1}, {2, 3}}));
}

}  // namespace
}  // namespace rb::reports
