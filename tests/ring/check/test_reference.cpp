// The reference and the comparison: sampled rows include the split's boundaries, NaN never passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/fill_inputs_ref.hpp"
#include "ring/check/reference.hpp"

namespace rb::ring {
namespace {

TEST(Reference, SampledRowsCoverBoundariesAndAreDistinct) {
  Config cfg;
  cfg.seq = 1 << 16;
  cfg.cp = 8;
  cfg.split = Split::zigzag;
  const auto plan = make_plan(cfg);
  const auto rows = check_rows(plan, 8192, 300);
  EXPECT_FALSE(rows.all_rows);
  EXPECT_EQ(rows.positions.size(), 300u);
  EXPECT_TRUE(std::is_sorted(rows.positions.begin(), rows.positions.end()));
  EXPECT_EQ(std::adjacent_find(rows.positions.begin(), rows.positions.end()), rows.positions.end());
  for (const auto& rp : plan.ranks)
    for (const auto& s : rp.segments) {
      EXPECT_TRUE(std::binary_search(rows.positions.begin(), rows.positions.end(), s.first()));
      EXPECT_TRUE(std::binary_search(rows.positions.begin(), rows.positions.end(), s.last()));
    }
  EXPECT_TRUE(check_rows(plan, 1 << 16).all_rows);
}

TEST(Reference, RowsAgreeWhateverTheThreadCount) {
  Config cfg;
  cfg.seq = 300;
  cfg.heads = 4;
  cfg.kv_heads = 1;
  cfg.head_dim = 8;
  std::vector<std::int64_t> pos{0, 1, 2, 50, 51, 52, 53, 150, 299};
  EXPECT_EQ(reference_rows(cfg, pos, 1), reference_rows(cfg, pos, 3));
  // Row 0 attends only to key 0: its output is V[0] exactly.
  const auto r = reference_rows(cfg, pos, 1);
  for (int h = 0; h < 4; ++h)
    for (int d = 0; d < 8; ++d)
      EXPECT_EQ(r[h * 8 + d],
                kernels::ref::round_to(kernels::ref::input_value(cfg.seed, kernels::ref::Tensor::v, 1, 8, 0, 0, d),
                                       cfg.dtype));  // the reference uses the inputs as the run rounds them
}

TEST(Reference, ComparisonCountsNaNAndTolerance) {
  Config cfg;
  cfg.dtype = DType::float64;
  CheckRows rows{{0}, true};
  std::vector<double> ref{1.0, 2.0, 3.0};
  auto c = compare_to_reference(std::vector<double>{1.0, 2.0, 3.0}, ref, cfg, rows);
  EXPECT_TRUE(c.passed());
  EXPECT_EQ(c.max_abs_err, 0.0);
  c = compare_to_reference(std::vector<double>{1.0, std::nan(""), 3.0 + 1e-6}, ref, cfg, rows);
  EXPECT_EQ(c.over_tolerance, 2);
  EXPECT_FALSE(c.passed());
  EXPECT_TRUE(std::isnan(c.max_abs_err));
}

TEST(Reference, ToleranceGrowsWithPrecisionAndLength) {
  Config a;
  a.dtype = DType::float64;
  Config b = a;
  b.dtype = DType::float32;
  Config c = b;
  c.seq = 1 << 20;
  EXPECT_LT(tolerance_for(a).first, tolerance_for(b).first);
  EXPECT_LT(tolerance_for(b).first, tolerance_for(c).first);
  EXPECT_FALSE(tolerance_for(b).second.empty());
}

// cuDNN stores each piece's O in bf16 before the fp32 fold: one more bf16 rounding than the own
// kernel, so exactly 2^-8 more, and said so.
TEST(Reference, TheCudnnKernelsBoundAddsItsBf16Output) {
  Config own;
  own.dtype = DType::bfloat16;
  own.backend = Backend::cuda;
  Config cudnn = own;
  cudnn.kernel = Kernel::cudnn;
  EXPECT_DOUBLE_EQ(tolerance_for(cudnn).first - tolerance_for(own).first, std::ldexp(1.0, -8));
  EXPECT_NE(tolerance_for(cudnn).second.find("cuDNN"), std::string::npos);
}

}  // namespace
}  // namespace rb::ring
