// The reader holds a record's fields to each other (reports/results/results_relations.hpp): the
// 2.10–2.12 fields (phase, dkv, ulysses_degree, documents, the backward's figures) as the writer
// derives them, on every record; the rules a sweep validates by, on a record that ran; ranks, steps
// and sources to c, forward and backward. Each case edits a real sweep's file (the golden test's
// stored input) and expects the one JSON path in the error. Tests of issue 51, items 1 and 9.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "reports/results/results_reader.hpp"
#include "results_refusal.hpp"

namespace rb::reports {
// Named apart: the unity build joins this file with test_results_values.cpp, whose helpers share names.
namespace relations_test {
namespace {

using nlohmann::json;

const std::filesystem::path kSource(RINGBENCH_SOURCE_DIR);

// A real cpu sweep's results.json (run 0: S = 256, c = 1, contiguous ring; run 5: c = 2 allgather;
// run 4: c = 2 contiguous ring), as a 2.12.0 file.
json file() {
  static const json doc = [] {
    json d = json::parse(std::ifstream(kSource / "tests/data/golden/inputs/base.json"));
    d["schema_version"] = "2.12.0";
    for (auto& r : d["runs"]) r["schema_version"] = "2.12.0";
    return d;
  }();
  return doc;
}

std::string where_of(const json& doc) { return test::refusal_where(doc); }

json edited(json doc, std::initializer_list<std::pair<std::string, json>> edits) {
  for (const auto& [pointer, value] : edits) doc[json::json_pointer(pointer)] = value;
  return doc;
}

json gradients(bool dq, bool passed) {
  const json one = {{"rows_checked", 8},   {"all_rows", true},    {"max_abs_err", 1e-15},
                    {"rel_l2_err", 1e-15}, {"over_tolerance", 0}, {"passed", true}};
  json dqj = one;
  dqj["passed"] = dq;
  return {{"tolerance", 1e-10}, {"tolerance_basis", "float64"}, {"dq", dqj},       {"dk", one},
          {"dv", one},          {"dkv_unchecked", nullptr},     {"passed", passed}};
}

// Run `i` made a fwd+bwd record of a ring variant, as the writer writes one.
json backward(std::size_t i, json doc = file()) {
  json& c = doc["runs"][i]["config"];
  c["id"] = c["id"].get<std::string>() + "-fwd+bwd" + (c["variant"] == "allgather" ? "" : "-reverse");
  c["phase"] = "fwd+bwd";
  if (c["variant"] != "allgather") c["dkv"] = "reverse";
  doc["runs"][i]["correctness"]["gradients"] = gradients(true, true);
  const json& per_rank = doc["runs"][i]["plan"]["per_rank"];
  json ranks = json::array();
  for (std::size_t r = 0; r < per_rank.size(); ++r)
    ranks.push_back({{"rank", r},
                     {"recv_bytes", 0},
                     {"tail_recv_bytes", 0},
                     {"steps", {{{"step", 0}, {"sources", {r}}, {"unmasked_pairs", 1}, {"recv_bytes", 0}}}}});
  doc["runs"][i]["plan"]["backward"] = {{"grads", "with_kv"}, {"flops", 1}, {"bytes_moved", 0}, {"per_rank", ranks}};
  return doc;
}

TEST(ResultsRelations, TheWritersBackwardRecordIsAccepted) {
  EXPECT_EQ(where_of(file()), "(accepted)");
  EXPECT_EQ(where_of(backward(0)), "(accepted)");
  EXPECT_EQ(where_of(backward(5)), "(accepted)");
}

// A forward carries no backward figure: accept judged a fwd record's bwd_* checks from them.
TEST(ResultsRelations, AForwardCarriesNoBackwardFigure) {
  for (const char* p : {"/runs/0/correctness/gradients", "/runs/0/timing/phase_ms", "/runs/0/phase_metrics",
                        "/runs/0/plan/backward", "/runs/0/plan/forward_flops"}) {
    const json v = std::string(p).ends_with("gradients")  ? gradients(true, true)
                   : std::string(p).ends_with("flops")    ? json(1.0)
                   : std::string(p).ends_with("backward") ? backward(0)["runs"][0]["plan"]["backward"]
                                                          : json::object();
    EXPECT_EQ(where_of(edited(file(), {{p, v}})), std::string("f.json: ") + p) << p;
  }
  EXPECT_EQ(where_of(edited(file(), {{"/runs/0/timeline/intervals/0/phase", 1}})),
            "f.json: /runs/0/timeline/intervals/0/phase");
}

// compare skips a field absent on one side: a record without config.phase whose id names fwd+bwd was
// paired with a fwd+bwd record.
TEST(ResultsRelations, TheIdNamesThePhaseTheRecordGives) {
  json doc = file();
  doc["runs"][0]["config"]["id"] = doc["runs"][0]["config"]["id"].get<std::string>() + "-fwd+bwd";
  EXPECT_EQ(where_of(doc), "f.json: /runs/0/config/id");
  doc = backward(0);
  doc["runs"][0]["config"].erase("phase");
  EXPECT_EQ(where_of(doc), "f.json: /runs/0/config/id");
  doc = backward(0);
  doc["runs"][0]["config"]["phase"] = "bwd";
  EXPECT_EQ(where_of(doc), "f.json: /runs/0/config/id");
}

TEST(ResultsRelations, TheGradientsPassOnlyWhereEachPassed) {
  EXPECT_EQ(where_of(edited(backward(0), {{"/runs/0/correctness/gradients", gradients(false, true)}})),
            "f.json: /runs/0/correctness/gradients/passed");
  EXPECT_EQ(where_of(edited(backward(0), {{"/runs/0/correctness/gradients", gradients(false, false)}})), "(accepted)");
}

TEST(ResultsRelations, DkvIsThereExactlyForABackwardOfARotatingVariant) {
  json doc = backward(0);
  doc["runs"][0]["config"].erase("dkv");
  EXPECT_EQ(where_of(doc), "f.json: /runs/0/config/dkv");  // missing on a ring backward
  EXPECT_EQ(where_of(edited(backward(5), {{"/runs/5/config/dkv", "reverse"}})), "f.json: /runs/5/config/dkv");
  EXPECT_EQ(where_of(edited(file(), {{"/runs/0/config/dkv", "follow"}})), "f.json: /runs/0/config/dkv");  // a forward
}

TEST(ResultsRelations, OnlyAHeadExchangeHasAUlyssesDegree) {
  EXPECT_EQ(where_of(edited(file(), {{"/runs/4/config/ulysses_degree", 1}})), "f.json: /runs/4/config/ulysses_degree");
  EXPECT_EQ(where_of(edited(file(), {{"/runs/4/config/variant", "ulysses"}})), "f.json: /runs/4/config/ulysses_degree");
  EXPECT_EQ(where_of(edited(file(), {{"/runs/4/config/variant", "ulysses"}, {"/runs/4/config/ulysses_degree", 1}})),
            "f.json: /runs/4/config/ulysses_degree");  // ulysses exchanges over c = 2
  EXPECT_EQ(where_of(edited(file(), {{"/runs/4/config/variant", "ulysses"}, {"/runs/4/config/ulysses_degree", 2}})),
            "(accepted)");
}

// The backward's per-rank ranks, steps and sources are held to c as the forward's are.
TEST(ResultsRelations, TheBackwardsRanksStepsAndSourcesAreOfTheConfiguration) {
  const std::string b = "/runs/4/plan/backward/per_rank";
  EXPECT_EQ(where_of(edited(backward(4), {{b + "/1/rank", 2}})), "f.json: " + b + "/1/rank");
  EXPECT_EQ(where_of(edited(backward(4), {{b + "/1/steps/0/sources/0", 2}})), "f.json: " + b + "/1/steps/0/sources/0");
  EXPECT_EQ(where_of(edited(backward(4), {{b + "/1/steps/0/step", 2}})), "f.json: " + b + "/1/steps/0/step");
  EXPECT_EQ(where_of(edited(backward(4), {{b + "/1/steps/0/step", -1}})), "f.json: " + b + "/1/steps/0/step");
  json doc = backward(4);
  doc["runs"][4]["plan"]["backward"]["per_rank"].erase(1);
  EXPECT_EQ(where_of(doc), "f.json: " + b);
  EXPECT_EQ(where_of(edited(file(), {{"/runs/4/plan/per_rank/1/steps/0/sources/0", 7}})),
            "f.json: /runs/4/plan/per_rank/1/steps/0/sources/0");
}

// 2^64 - 1 read back as -1 and passed the documents' sum; every integer is read as a signed one.
TEST(ResultsRelations, NoIntegerWrapsWhereItIsRead) {
  json doc = edited(file(), {{"/runs/0/config/documents", "100+157"},
                             {"/runs/0/config/document_lengths", {100, 157}},
                             {"/runs/0/config/split", "doc-zigzag"},
                             {"/runs/0/config/padding_tokens", std::uint64_t{18446744073709551615u}}});
  EXPECT_EQ(where_of(doc), "f.json: /runs/0/config/padding_tokens");
  EXPECT_EQ(where_of(edited(file(), {{"/runs/0/config/seed", std::uint64_t{18446744073709551615u}}})), "(accepted)");
  EXPECT_EQ(where_of(edited(file(), {{"/runs/0/plan/total_work", std::uint64_t{1} << 63}})),
            "f.json: /runs/0/plan/total_work");
}

// An absurd rate made fleet's drift +inf% (JSON null); a figure too small to be measured made any
// ratio with it overflow (issue 51, item 10).
TEST(ResultsRelations, RatesAreHeldToWhatADeviceReaches) {
  for (const char* p : {"/runs/0/metrics/attention_tflops", "/runs/0/metrics/per_rank/0/attention_tflops",
                        "/runs/4/metrics/comm_bandwidth_gbyte_per_s"})
    EXPECT_EQ(where_of(edited(file(), {{p, 1e300}})), std::string("f.json: ") + p) << p;
  EXPECT_EQ(where_of(edited(file(), {{"/runs/0/metrics/attention_tflops", 1e-300}})),
            "f.json: /runs/0/metrics/attention_tflops");
  EXPECT_EQ(where_of(edited(file(), {{"/runs/0/timing/samples_ms/0", 5e-324}})), "f.json: /runs/0/timing/samples_ms/0");
  EXPECT_EQ(where_of(edited(file(), {{"/runs/0/metrics/attention_tflops", 2000.0}})), "(accepted)");
}

// One rule for a record that did not run or failed (issue 51, item 1): it records what was asked,
// which may break the rules a sweep validates by; what the writer derives still holds.
TEST(ResultsRelations, ASkippedOrFailedRecordRecordsWhatWasAsked) {
  const auto asked = [](const char* status) {
    json doc = edited(file(), {{"/runs/0/config/documents", "256+256"},
                               {"/runs/0/config/document_lengths", {256, 256}},
                               {"/runs/0/config/padding_tokens", 0}});
    doc["runs"][0]["status"] = status;
    doc["runs"][0]["reason"] = "documents: the lengths sum to 512, not S = 256";
    for (const char* k : {"correctness", "timing", "plan", "metrics", "timeline", "placement"}) doc["runs"][0].erase(k);
    return doc;
  };
  EXPECT_EQ(where_of(asked("ok")), "f.json: /runs/0/config/document_lengths");
  EXPECT_EQ(where_of(asked("skipped")), "(accepted)");
  EXPECT_EQ(where_of(asked("failed")), "(accepted)");
  // What the writer derives holds whatever the status: a skipped forward names no other phase.
  json doc = asked("skipped");
  doc["runs"][0]["config"]["dkv"] = "reverse";
  EXPECT_EQ(where_of(doc), "f.json: /runs/0/config/dkv");
}

}  // namespace
}  // namespace relations_test
}  // namespace rb::reports
