// Activation memory: the five rows of Table 2 of Korthikanti et al. against values worked by hand,
// and the plate's three memory figures (docs/design.md §9) to the digits the plate prints.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "model/activation_memory.hpp"
#include "model/model_inputs.hpp"

namespace rb::model {
namespace {

// s = 2048, b = 1, h = 1024, a = 16, t = 4:
//   sbh = 2048 * 1024 = 2,097,152;  5as/h = 5 * 16 * 2048 / 1024 = 160
ActivationShape small(bool flash) { return ActivationShape{2048, 1, 1024, 16, 4, flash}; }

TEST(ActivationMemory, Table2RowsWithScores) {
  const auto a = small(false);
  // no parallelism:        sbh (34 + 160)               = 2,097,152 * 194  = 406,847,488
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::no_parallel, a), 406'847'488.0);
  // tensor parallel:       sbh (10 + 24/4 + 160/4) = sbh * 56               = 117,440,512
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp, a), 117'440'512.0);
  // tensor + sequence:     sbh (34/4 + 160/4)      = sbh * 48.5             = 101,711,872
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp_sp, a), 101'711'872.0);
  // tensor + selective:    sbh (10 + 24/4)         = sbh * 16               =  33,554,432
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp_selective, a), 33'554'432.0);
  // tensor + seq + sel.:   sbh (34/4)              = sbh * 8.5              =  17,825,792
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp_sp_selective, a), 17'825'792.0);
}

TEST(ActivationMemory, FlashAttentionDropsTheScoreTerms) {
  const auto a = small(true);
  // no parallelism: sbh * 34 = 71,303,168;  tp: sbh * 16 = 33,554,432;  tp + sp: sbh * 8.5 = 17,825,792
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::no_parallel, a), 71'303'168.0);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp, a), 33'554'432.0);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp_sp, a), 17'825'792.0);
  // Selective recompute already drops the scores, so FlashAttention changes nothing there.
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp_selective, a), 33'554'432.0);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp_sp_selective, a), 17'825'792.0);
}

TEST(ActivationMemory, PerDeviceScalesByLayersPerStageOverC) {
  // 406,847,488 * (5 layers / 2 stages = 2.5) / (c = 2) = 508,559,360
  EXPECT_DOUBLE_EQ(activation_bytes_per_device(MemoryRow::no_parallel, small(false), 5.0 / 2.0, 2), 508'559'360.0);
  // b = 3 triples everything: 17,825,792 * 3 = 53,477,376
  auto b3 = small(true);
  b3.micro_batch = 3;
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(MemoryRow::tp_sp_selective, b3), 53'477'376.0);
}

// Plate: Llama 3 405B, t = 8, p = 16, b = 1, FlashAttention, row tp-sp-selective, GB = 1e9 bytes.
// Per layer 34 * 131072 * 16384 / 8 = 9,126,805,504; x 126/16 = 71,873,593,344 (c = 1);
// / 16 = 4,492,099,584 (c = 16); S = 8192, c = 1 is 1/16 of S = 131072, the same 4,492,099,584.
TEST(ActivationMemory, PlateFigures) {
  const ModelInputs in = plate_inputs();
  in.validate();
  EXPECT_DOUBLE_EQ(in.layers_per_stage(), 7.875);
  const auto at = [&](std::int64_t seq, int c) {
    return activation_bytes_per_device(in.memory_row, in.activation_shape(seq), in.layers_per_stage(), c);
  };
  EXPECT_DOUBLE_EQ(at(131072, 1), 71'873'593'344.0);
  EXPECT_DOUBLE_EQ(at(131072, 16), 4'492'099'584.0);
  EXPECT_DOUBLE_EQ(at(8192, 1), 4'492'099'584.0);
  EXPECT_EQ(fmt::format("{:.1f} GB", at(131072, 1) / 1e9), "71.9 GB");
  EXPECT_EQ(fmt::format("{:.1f} GB", at(131072, 16) / 1e9), "4.5 GB");
  EXPECT_EQ(fmt::format("{:.1f} GB", at(8192, 1) / 1e9), "4.5 GB");
  // GiB would print 66.9: the plate's GB is 1e9 bytes.
  EXPECT_EQ(fmt::format("{:.1f}", at(131072, 1) / (1024.0 * 1024 * 1024)), "66.9");
}

TEST(ActivationMemory, RowNamesRoundTripAndUnknownIsInputError) {
  for (auto row : kMemoryRows) EXPECT_EQ(parse_memory_row(to_string(row), "--memory-row"), row);
  try {
    parse_memory_row("tp-everything", "--memory-row");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--memory-row");
    EXPECT_NE(std::string(e.what()).find("tp-everything"), std::string::npos);
  }
}

}  // namespace
}  // namespace rb::model
