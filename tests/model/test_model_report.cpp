// The model report behind `ringbench model --json`: the plate's figures as the command prints them,
// the series the HTML report plots, and bad requests as InputError naming the flag.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "bench/cli/model_report.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// `ringbench model --preset llama3-405b --tp 8 --pp 16 --seq 131072 --cp 1,16 --json`
ModelRequest plate_request() {
  ModelRequest req;
  req.inputs = model::plate_inputs();
  req.seqs = {131072};
  req.cps = {1, 16};
  return req;
}

const json& point(const json& rep, std::int64_t seq, int cp) {
  for (const auto& p : rep["points"])
    if (p["seq"] == seq && p["cp"] == cp) return p;
  throw std::runtime_error("no such point");
}

const json& by_key(const json& list, const char* key, const char* value) {
  for (const auto& e : list)
    if (e[key] == value) return e;
  throw std::runtime_error(fmt::format("no entry with {} = {}", key, value));
}

TEST(ModelReport, PlateFigures) {
  const json rep = model_report(plate_request());
  EXPECT_EQ(rep["schema"], "ringbench.model");
  EXPECT_EQ(fmt::format("{:.1f}", point(rep, 131072, 1)["memory"]["gb_per_device"].get<double>()), "71.9");
  EXPECT_EQ(fmt::format("{:.1f}", point(rep, 131072, 16)["memory"]["gb_per_device"].get<double>()), "4.5");
  const json& ring = by_key(point(rep, 131072, 16)["comm_compute"], "variant", "ring");
  EXPECT_EQ(fmt::format("{:.1f}%", 100 * ring["ratio"].get<double>()), "12.7%");
  const json& work = point(rep, 131072, 16)["work"];
  EXPECT_EQ(fmt::format("{:.2f}", by_key(work, "split", "contiguous")["imbalance"].get<double>()), "1.94");
  EXPECT_EQ(fmt::format("{:.2f}", by_key(work, "split", "zigzag")["imbalance"].get<double>()), "1.00");

  ModelRequest short_seq = plate_request();
  short_seq.seqs = {8192};
  short_seq.cps = {1};
  EXPECT_EQ(fmt::format("{:.1f}", point(model_report(short_seq), 8192, 1)["memory"]["gb_per_device"].get<double>()),
            "4.5");
}

TEST(ModelReport, SeriesForThePlot) {
  ModelRequest req = plate_request();
  req.cps = {1, 2, 4, 8, 16, 32};
  const json rep = model_report(req);
  const json& mem = rep["series"]["memory_per_device"];
  ASSERT_EQ(mem.size(), 1u);
  ASSERT_EQ(mem[0]["cp"].size(), 6u);
  // Memory halves with every doubling of c.
  for (std::size_t i = 1; i < 6; ++i)
    EXPECT_DOUBLE_EQ(mem[0]["bytes_per_device"][i - 1].get<double>(), 2 * mem[0]["bytes_per_device"][i].get<double>());
  const json& work = rep["series"]["work_per_device"];
  ASSERT_EQ(work.size(), 6u);
  const json& c16 = work[4];
  EXPECT_EQ(c16["cp"], 16);
  ASSERT_EQ(c16["splits"]["contiguous"]["flops_per_rank"].size(), 16u);
  ASSERT_EQ(c16["splits"]["zigzag"]["flops_per_rank"].size(), 16u);
  ASSERT_EQ(c16["splits"]["striped"]["flops_per_rank"].size(), 16u);
  // Contiguous work grows with the rank; zig-zag is flat.
  const auto& contiguous = c16["splits"]["contiguous"]["relative_to_mean"];
  for (std::size_t r = 1; r < 16; ++r) EXPECT_GT(contiguous[r].get<double>(), contiguous[r - 1].get<double>());
  for (const auto& x : c16["splits"]["zigzag"]["relative_to_mean"]) EXPECT_DOUBLE_EQ(x.get<double>(), 1.0);
  // Simulations: 3 splits x 2 variants per point, with per-rank arrays; no overlap figure at c = 1.
  const json& sims = point(rep, 131072, 16)["simulation"];
  EXPECT_EQ(sims.size(), 6u);
  EXPECT_EQ(sims[0]["per_rank"]["idle_s"].size(), 16u);
  EXPECT_TRUE(point(rep, 131072, 1)["simulation"][0]["overlap_fraction"].is_null());
}

void expect_input_error(ModelRequest req, const std::string& where) {
  try {
    model_report(req);
    FAIL() << "expected InputError at " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), where) << e.what();
  }
}

TEST(ModelReport, BadRequests) {
  ModelRequest req = plate_request();
  req.inputs.tp = 3;
  expect_input_error(req, "--tp");
  req = plate_request();
  req.seqs = {0};
  expect_input_error(req, "--seq");
  req = plate_request();
  req.cps = {-4};
  expect_input_error(req, "--cp");
  req = plate_request();
  req.seqs = {1000};  // zig-zag at c = 16 needs S % 32 == 0
  expect_input_error(req, "--seq");
  req = plate_request();
  req.inputs.shape.hidden = 0;
  expect_input_error(req, "--hidden");
}

}  // namespace
}  // namespace rb::bench
