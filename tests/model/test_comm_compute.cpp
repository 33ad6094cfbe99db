// Traffic against compute: the plate's 12.7% with its arithmetic, presets, and the shape rules.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "model/comm_compute.hpp"
#include "model/model_inputs.hpp"
#include "model/presets.hpp"

namespace rb::model {
namespace {

// Plate, c = 16, S = 131072: this device holds Hkv/t = 1 K/V head and Hq/t = 16 query heads.
// K/V bytes: 2 (K and V) * 1 head * 128 * 2 bytes * 131072 * 15/16 = 62,914,560 bytes;
//   over 400 Gb/s = 50e9 B/s: 1.2582912 ms.
// Compute: 4 * 128 * 16 * (131072 * 131073 / 2) / 16 = 4,398,080,065,536 FLOPs;
//   at 0.45 * 989e12 = 445.05e12 FLOP/s: 9.88222 ms.  Ratio 0.12733 -> "12.7%".
TEST(CommCompute, PlateRatio) {
  const ModelInputs in = plate_inputs();
  const CommCompute cc = comm_compute(in, 131072, 16, Variant::ring);
  EXPECT_EQ(cc.transfers, 15);
  EXPECT_DOUBLE_EQ(cc.bytes, 62'914'560.0);
  EXPECT_DOUBLE_EQ(cc.transfer_s, 62'914'560.0 / 50e9);
  EXPECT_DOUBLE_EQ(cc.flops, 4'398'080'065'536.0);
  EXPECT_NEAR(cc.compute_s, 4'398'080'065'536.0 / 445.05e12, 1e-15);
  EXPECT_NEAR(cc.ratio, 0.127329, 1e-6);
  EXPECT_EQ(fmt::format("{:.1f}%", 100 * cc.ratio), "12.7%");
  // The all-gather moves the same bytes; it differs in when (the simulator), not in how much.
  const CommCompute ag = comm_compute(in, 131072, 16, Variant::allgather);
  EXPECT_DOUBLE_EQ(ag.bytes, cc.bytes);
  EXPECT_DOUBLE_EQ(ag.ratio, cc.ratio);
}

// The plate's ring in training (issue 43, docs/model.md "The backward"): B = 62,914,560 / 15 =
// 4,194,304 bytes per device's block; compute 2.5 x 9.88222 ms = 24.7056 ms.
// - reverse (TransformerEngine): 2 x 15 B = 125,829,120 bytes, 2.51658 ms: 10.19% (12.7% x 2 / 2.5);
// - follow (ring-flash-attn): 15 B + 16 x 2 B (fp32 dK/dV of bf16 K/V) = 47 B, 3.94265 ms: 15.96%;
// - allgather: the gather again and a reduce-scatter, 30 B, as reverse, none of it hidden.
TEST(CommCompute, PlateRatioOfTheBackward) {
  const ModelInputs in = plate_inputs();
  const CommCompute fwd = comm_compute(in, 131072, 16, Variant::ring);
  const BackwardCommCompute rev = backward_comm_compute(in, 131072, 16, Variant::ring, Dkv::reverse);
  const BackwardCommCompute fol = backward_comm_compute(in, 131072, 16, Variant::ring, Dkv::follow);
  const BackwardCommCompute ag = backward_comm_compute(in, 131072, 16, Variant::allgather, Dkv::follow);
  const double block = 4'194'304.0;
  EXPECT_DOUBLE_EQ(fwd.bytes, 15 * block);
  EXPECT_DOUBLE_EQ(rev.bytes, 30 * block);
  EXPECT_DOUBLE_EQ(fol.bytes, 47 * block);
  EXPECT_DOUBLE_EQ(ag.bytes, 30 * block);
  EXPECT_EQ(ag.dkv, Dkv::reverse);  // the gather's one design
  EXPECT_DOUBLE_EQ(rev.flops, 2.5 * fwd.flops);
  EXPECT_NEAR(rev.ratio, fwd.ratio * 2 / 2.5, 1e-12);
  EXPECT_EQ(fmt::format("{:.1f}%", 100 * rev.ratio), "10.2%");
  EXPECT_NEAR(fol.ratio, fwd.ratio * 47.0 / 15 / 2.5, 1e-12);
  EXPECT_EQ(fmt::format("{:.1f}%", 100 * fol.ratio), "16.0%");
  EXPECT_EQ(rev.transfers, 16);
  EXPECT_EQ(fol.transfers, 31);
  EXPECT_DOUBLE_EQ(backward_comm_compute(in, 131072, 1, Variant::ring, Dkv::follow).bytes, 0.0);
}

TEST(CommCompute, NoTrafficAtOneRankAndLatencyPerTransfer) {
  ModelInputs in = plate_inputs();
  EXPECT_DOUBLE_EQ(comm_compute(in, 131072, 1, Variant::ring).transfer_s, 0.0);
  in.link.latency_s = 1e-5;
  const auto cc = comm_compute(in, 131072, 16, Variant::ring);
  EXPECT_DOUBLE_EQ(cc.transfer_s, 62'914'560.0 / 50e9 + 15 * 1e-5);
}

TEST(CommCompute, NonCausalCountsEveryPair) {
  ModelInputs in = plate_inputs();
  in.causal = false;
  // 4 * 128 * 16 * 1024^2 / 4 ranks
  EXPECT_DOUBLE_EQ(attention_flops_per_layer(in, 1024, 4), 4.0 * 128 * 16 * 1024 * 1024 / 4);
  EXPECT_DOUBLE_EQ(sequence_pairs(1024, true), 1024.0 * 1025 / 2);
}

TEST(CommCompute, KvHeadsReplicatedWhenTExceedsHkv) {
  ModelInputs in = plate_inputs();
  in.tp = 16;  // 8 K/V heads over 16 ranks: each holds one, replicated twice
  in.validate();
  EXPECT_EQ(in.local_kv_heads(), 1);
  EXPECT_EQ(in.local_heads(), 8);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(in), 2.0 * 128 * 2);
}

TEST(Presets, NamesAndNumbers) {
  EXPECT_EQ(find_model("llama3-70b", "--preset").layers, 80);
  EXPECT_EQ(find_model("llama3-8b", "--preset").kv_heads, 8);
  EXPECT_DOUBLE_EQ(parse_device("h200-sxm", "--peak").peak_flops, 989e12);
  EXPECT_DOUBLE_EQ(parse_device("500", "--peak").peak_flops, 500e12);
  EXPECT_DOUBLE_EQ(parse_link("ib-ndr", "--link").gbps(), 400.0);
  EXPECT_DOUBLE_EQ(parse_link("nvlink4", "--link").bytes_per_s, 450e9);
  EXPECT_NEAR(parse_link("pcie5", "--link").bytes_per_s, 63.015e9, 1e6);
  EXPECT_DOUBLE_EQ(parse_link("100", "--link").bytes_per_s, 12.5e9);
}

void expect_input_error(const auto& fn, const std::string& where, const std::string& value) {
  try {
    fn();
    FAIL() << "expected InputError at " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), where);
    EXPECT_NE(e.value().find(value), std::string::npos) << e.what();
    EXPECT_FALSE(e.rule().empty());
  }
}

TEST(Presets, BadNamesAreInputErrors) {
  expect_input_error([] { find_model("llama4", "--preset"); }, "--preset", "llama4");
  expect_input_error([] { parse_device("b200", "--peak"); }, "--peak", "b200");
  expect_input_error([] { parse_device("-3", "--peak"); }, "--peak", "-3");
  expect_input_error([] { parse_link("0", "--link"); }, "--link", "0");
  expect_input_error([] { parse_link("warp", "--link"); }, "--link", "warp");
}

TEST(ModelInputs, ShapeRules) {
  auto with = [](auto change) {
    ModelInputs in = plate_inputs();
    change(in);
    return [in] { in.validate(); };
  };
  expect_input_error(with([](ModelInputs& in) { in.tp = 3; }), "--tp", "3");
  expect_input_error(with([](ModelInputs& in) { in.tp = 0; }), "--tp", "0");
  expect_input_error(with([](ModelInputs& in) { in.pp = 200; }), "--pp", "200");
  expect_input_error(with([](ModelInputs& in) { in.shape.layers = -1; }), "--layers", "-1");
  expect_input_error(with([](ModelInputs& in) { in.shape.heads = 100; }), "--heads", "100");
  expect_input_error(with([](ModelInputs& in) { in.shape.kv_heads = 0; }), "--kv-heads", "0");
  expect_input_error(with([](ModelInputs& in) { in.efficiency = 1.5; }), "--efficiency", "1.5");
  expect_input_error(with([](ModelInputs& in) {
                       in.shape.heads = 48;
                       in.shape.kv_heads = 12;  // t = 8 neither divides 12 nor is a multiple of it
                     }),
                     "--tp", "8");
  expect_input_error([] { ModelInputs::validate_point(0, 1); }, "--seq", "0");
  expect_input_error([] { ModelInputs::validate_point(8, 16); }, "--cp", "16");
}

}  // namespace
}  // namespace rb::model
