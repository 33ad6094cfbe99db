// Results of format 0.x read as 1.0.0: the headline TFLOP/s becomes per rank with the sum kept as
// the aggregate, a cuda run's event-span comm becomes comm in flight with its basis named, and a
// results.jsonl line without a version is taken as 0.x. The file is tests/data/results-0.3.0-h200.json,
// built from the first H200 run's figures.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_upgrade.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

const std::filesystem::path kFixture = std::filesystem::path(RINGBENCH_SOURCE_DIR) /
                                       "tests/data/results-0.3.0-h200.json";

TEST(ResultsUpgrade, AnH200FileOf030ReadsWithPerGpuTflopsAndInFlightComm) {
  const ResultsFile f = read_results(kFixture);
  EXPECT_EQ(f.major, 2);
  EXPECT_EQ(f.doc["schema_version"], kResultsSchemaVersion);
  EXPECT_EQ(f.doc["converted_from"], "0.3.0");
  const json& ring = f.runs()[0];
  const json& m = ring["metrics"];
  // The report that filed this said 1297 TFLOP/s for c = 8 on one 989 TFLOP/s device.
  EXPECT_DOUBLE_EQ(m["attention_tflops_aggregate"].get<double>(), 1297.0);
  EXPECT_DOUBLE_EQ(m["attention_tflops"].get<double>(), 1297.0 / 8);
  EXPECT_DOUBLE_EQ(m["attention_tflops_slowest_rank"].get<double>(), 175.8 * 0.996);
  EXPECT_EQ(m["slowest_rank"], 0);
  // Its comm was the span of events around each copy: in flight, as the basis says.
  EXPECT_EQ(m["comm_basis"], "in_flight");
  EXPECT_DOUBLE_EQ(m["comm_in_flight_ms"].get<double>(), 1.874);
  EXPECT_EQ(m["per_rank"][3]["comm_basis"], "in_flight");
  EXPECT_EQ(ring["timeline"]["intervals"][1]["kind"], "comm_in_flight");
  // CUPTI saw execution.
  EXPECT_EQ(ring["cupti"]["metrics"]["comm_basis"], "execution");
  EXPECT_DOUBLE_EQ(ring["cupti"]["metrics"]["attention_tflops"].get<double>(), 1297.0 / 8);
  EXPECT_EQ(ring["schema_version"], kResultsSchemaVersion);
  EXPECT_DOUBLE_EQ(f.runs()[1]["metrics"]["attention_tflops"].get<double>(), 1458.0 / 8);
}

// Results 2.0.0: the per-GPU headline divides by the GPUs that ran the ranks at once. A 1.x record
// of cuda's concurrent mode had 8 ranks on 1 GPU and divided by 8; it reads as the whole pass's
// rate on that GPU. Isolated mode, nccl and the cpu backend divided by c rightly and read as before.
TEST(ResultsUpgrade, A1xConcurrentRunReadsPerGpuNotPerRank) {
  json doc = json::parse(std::ifstream(kFixture));
  json& concurrent = doc["runs"][0];
  concurrent["schema_version"] = "1.2.0";
  concurrent["timing"]["rank_mode"] = "concurrent";
  concurrent["timing"]["devices"] = 2;
  concurrent["metrics"] = {{"attention_tflops", 800.0 / 8}, {"attention_tflops_aggregate", 800.0}};
  concurrent["cupti"]["metrics"] = {{"attention_tflops", 640.0 / 8}, {"attention_tflops_aggregate", 640.0}};
  json& isolated = doc["runs"][1];
  isolated["schema_version"] = "1.2.0";
  isolated["metrics"] = {{"attention_tflops", 800.0 / 8}, {"attention_tflops_aggregate", 800.0}};
  doc["schema_version"] = "1.2.0";
  ASSERT_EQ(upgrade_results(doc), 2);
  EXPECT_EQ(doc["converted_from"], "1.2.0");
  EXPECT_DOUBLE_EQ(concurrent["metrics"]["attention_tflops"].get<double>(), 800.0 / 2);
  EXPECT_EQ(concurrent["metrics"]["attention_tflops_gpus"], 2);
  EXPECT_DOUBLE_EQ(concurrent["cupti"]["metrics"]["attention_tflops"].get<double>(), 640.0 / 2);
  EXPECT_DOUBLE_EQ(isolated["metrics"]["attention_tflops"].get<double>(), 800.0 / 8);
  EXPECT_EQ(isolated["metrics"]["attention_tflops_gpus"], 8);
  EXPECT_EQ(isolated["schema_version"], kResultsSchemaVersion);
}

TEST(ResultsUpgrade, CurrentRunsAreLeftAloneAndConversionIsIdempotent) {
  json doc = json::parse(std::ifstream(kFixture));
  ASSERT_EQ(upgrade_results(doc), 2);
  const json once = doc;
  EXPECT_EQ(upgrade_results(doc), 0);  // every run now says the current version
  EXPECT_EQ(doc, once);
}

TEST(ResultsUpgrade, AJsonlLineWithoutAVersionIsOfTheOldFormat) {
  const json old = json::parse(std::ifstream(kFixture));
  const auto dir = std::filesystem::temp_directory_path() / "ringbench-upgrade-test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "results.jsonl";
  {
    std::ofstream out(path);
    out << old["runs"][0].dump() << "\n";  // written by a 0.3.0 ringbench: no version on the line
    json current = old["runs"][1];
    current["schema_version"] = kResultsSchemaVersion;
    current["metrics"]["attention_tflops"] = 182.25;  // already per rank
    current["metrics"]["attention_tflops_aggregate"] = 1458.0;
    out << current.dump() << "\n";
  }
  const ResultsFile f = read_results(path);
  EXPECT_DOUBLE_EQ(f.runs()[0]["metrics"]["attention_tflops"].get<double>(), 1297.0 / 8);
  EXPECT_DOUBLE_EQ(f.runs()[1]["metrics"]["attention_tflops"].get<double>(), 182.25);
  EXPECT_EQ(f.doc["converted_from"], "0.x");
  std::filesystem::remove_all(dir);
}

// Versions are three parts of digits, each within an int: "4294967297.0.0" used to wrap to 1.x.
TEST(ResultsReader, VersionsAreDigitsOnly) {
  int ma = -1, mi = -1, pa = -1;
  ASSERT_TRUE(parse_semver("2.10.0", ma, mi, pa));
  EXPECT_EQ(ma, 2);
  EXPECT_EQ(mi, 10);
  EXPECT_EQ(pa, 0);
  for (const char* bad : {"4294967297.0.0", " 1.2.0", "+1.2.0", "-0.3.0", "1.2", "1.2.0.", "1.2.0 ", "1..0", "",
                          "1.2.x", "01.2.0x", "99999999999999999999.0.0"})
    EXPECT_FALSE(parse_semver(bad, ma, mi, pa)) << "'" << bad << "'";
  json doc = json::parse(std::ifstream(kFixture));
  doc["schema_version"] = "4294967297.0.0";
  EXPECT_THROW(validate_results(doc, "x.json"), InputError);
}

TEST(ResultsUpgrade, AFutureMajorIsStillRefused) {
  json doc = json::parse(std::ifstream(kFixture));
  doc["schema_version"] = "3.0.0";
  EXPECT_THROW(validate_results(doc, "x.json"), InputError);
  // A record from a newer ringbench in a file whose header says 1.0.0 (a results.jsonl is given
  // today's header on read) is refused too, naming the record; so is a version that is not one.
  doc["schema_version"] = kResultsSchemaVersion;
  doc["runs"][1]["schema_version"] = "3.1.0";
  try {
    validate_results(doc, "x.jsonl");
    ADD_FAILURE() << "a 3.1.0 record was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/runs/1/schema_version"), std::string::npos) << e.what();
  }
  doc["runs"][1]["schema_version"] = 1;
  EXPECT_THROW(validate_results(doc, "x.jsonl"), InputError);
}

}  // namespace
}  // namespace rb::reports
