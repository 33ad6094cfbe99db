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

// Llama 3 8B (Hq 32, Hkv 8, t = 1): Ulysses moves fewer bytes than the ring once c > (Hq + Hkv)/Hkv =
// 5 (docs/model.md, "Strategies"); at c = 6 it cannot run (32 % 6).
ModelRequest strategies_request() {
  ModelRequest req;
  req.inputs = model::plate_inputs();
  req.inputs.shape = model::find_model("llama3-8b", "test");
  req.inputs.tp = 1;
  req.inputs.pp = 1;
  req.seqs = {12288, 196608};  // divisible by 2c for every c here
  req.cps = {2, 4, 6, 8};
  req.splits = {Split::zigzag};
  req.variants = {Variant::ring, Variant::ulysses};
  return req;
}

TEST(ModelReport, UlyssesMovesFewerBytesThanTheRingBeyondCFive) {
  const json rep = model_report(strategies_request());
  for (const std::int64_t seq : {12288, 196608}) {
    for (const int c : {2, 4, 8}) {
      const json& st = point(rep, seq, c)["strategies"];
      EXPECT_EQ(st["fewest_bytes"], c > 5 ? "ulysses" : "ring") << "S=" << seq << " c=" << c;
      // The bytes are the closed forms: the ring's (c-1)/c·S·2·Hkv·D·e, Ulysses' (c-1)/c²·S·(2Hq + 2Hkv)·D·e.
      const double S = static_cast<double>(seq), e = 2, D = 128;
      EXPECT_DOUBLE_EQ(by_key(st["list"], "name", "ring")["bytes_per_layer"].get<double>(),
                       (c - 1.0) / c * S * 2 * 8 * D * e);
      EXPECT_DOUBLE_EQ(by_key(st["list"], "name", "ulysses")["bytes_per_layer"].get<double>(),
                       (c - 1.0) / (c * c) * S * (2 * 32 + 2 * 8) * D * e);
    }
    const json& six = by_key(point(rep, seq, 6)["strategies"]["list"], "name", "ulysses");
    EXPECT_FALSE(six["possible"].get<bool>());
    EXPECT_NE(six["reason"].get<std::string>().find("Hq % U == 0"), std::string::npos);
  }
  // The crossover table says the same, row by S, column by c.
  const json& row = rep["crossover"]["rows"][0];
  EXPECT_EQ(row["cp"], json({2, 4, 6, 8}));
  EXPECT_EQ(row["fewest_bytes"], json({"ring", "ring", "ring", "ulysses"}));
}

// Checked against the simulator: on one link for both, with the compute made negligible, the pass is
// the traffic, and the simulated winner is the byte count's; with the compute of a long sequence the
// ring hides its transfers and wins beyond c = 5 too, where Ulysses' all-to-alls stay exposed.
TEST(ModelReport, TheSimulatorAgreesWithTheBytesWhenCommDecidesAndNotWhenComputeHidesIt) {
  ModelRequest req = strategies_request();
  req.inputs.inner_link = req.inputs.link;
  req.inputs.device.peak_flops = 1e30;
  const json comm_bound = model_report(req);
  for (const std::int64_t seq : {12288, 196608})
    for (const int c : {2, 4, 8}) {
      const json& st = point(comm_bound, seq, c)["strategies"];
      EXPECT_EQ(st["fastest"], st["fewest_bytes"]) << "S=" << seq << " c=" << c;
    }
  req.inputs = strategies_request().inputs;
  req.inputs.inner_link = req.inputs.link;
  const json compute_bound = model_report(req);
  const json& st = point(compute_bound, 196608, 8)["strategies"];
  EXPECT_EQ(st["fewest_bytes"], "ulysses");
  EXPECT_EQ(st["fastest"], "ring");
  EXPECT_EQ(by_key(st["list"], "name", "ring")["exposed_comm_max_s"].get<double>(), 0.0);
  EXPECT_GT(by_key(st["list"], "name", "ulysses")["exposed_comm_max_s"].get<double>(), 0.0);
}

// The hybrid's all-to-all within a node runs on the inner link and its ring across the groups on the
// outer one; Ulysses over more ranks than a node crosses the outer link.
TEST(ModelReport, TheHybridSplitsItsTrafficOverTheInnerAndOuterLinks) {
  ModelRequest req = strategies_request();
  req.seqs = {131072};
  req.cps = {16};
  req.variants = {Variant::ulysses, Variant::hybrid};
  req.ulysses_degrees = {8, 3};
  const json rep = model_report(req);
  const json& st = point(rep, 131072, 16)["strategies"];
  const json& hybrid = by_key(st["list"], "name", "hybrid U=8");
  EXPECT_EQ(hybrid["alltoall"]["link"], "nvlink4");
  EXPECT_EQ(hybrid["kv"]["link"], "ib-ndr");
  EXPECT_EQ(hybrid["kv"]["transfers"], 1);  // G = 2 groups
  EXPECT_EQ(hybrid["alltoall"]["transfers"], 2 * 7);
  EXPECT_EQ(by_key(st["list"], "name", "ulysses")["alltoall"]["link"], "ib-ndr");  // 16 ranks: two nodes
  EXPECT_FALSE(by_key(st["list"], "name", "hybrid U=3")["possible"].get<bool>());  // 3 does not divide 16
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
