// The backward's float64 reference: textbook gradients of the whole sequence (dO generated as
// tensor 3), whatever rows are asked for and however many threads compute them; and when dK/dV are
// left unchecked, with the reason.
#include <gtest/gtest.h>

#include <cmath>

#include "../../kernels/naive_attention.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "ring/check/reference_backward.hpp"

namespace rb::ring {
namespace {

namespace kref = kernels::ref;

std::vector<double> tensor(const Config& cfg, kref::Tensor t, int heads) {
  std::vector<double> out(cfg.seq * heads * cfg.head_dim);
  kref::fill_inputs(out.data(), SegmentList{Segment{0, 1, cfg.seq}},
                    kref::FillParams{cfg.seed, t, heads, cfg.head_dim, cfg.dtype});
  return out;
}

void expect_rows(const std::vector<double>& got, const std::vector<double>& all, const std::vector<std::int64_t>& pos,
                 std::int64_t width, const char* name) {
  ASSERT_EQ(got.size(), pos.size() * static_cast<std::size_t>(width)) << name;
  for (std::size_t i = 0; i < pos.size(); ++i)
    for (std::int64_t x = 0; x < width; ++x)
      ASSERT_NEAR(got[i * width + x], all[pos[i] * width + x], 1e-12) << name << " row " << pos[i];
}

TEST(ReferenceBackward, EqualsTextbookGradientsOnAnyRowsAndThreads) {
  for (const bool causal : {true, false}) {
    Config cfg;
    cfg.seq = 150;
    cfg.heads = 4;
    cfg.kv_heads = 2;
    cfg.head_dim = 8;
    cfg.causal = causal;
    cfg.dtype = DType::float32;  // the inputs are rounded as the run stores them
    const auto q = tensor(cfg, kref::Tensor::q, 4), k = tensor(cfg, kref::Tensor::k, 2),
               v = tensor(cfg, kref::Tensor::v, 2), g = tensor(cfg, kref::Tensor::d_o, 4);
    std::vector<std::int64_t> all(150);
    for (int p = 0; p < 150; ++p) all[p] = p;
    std::vector<double> dq, dk, dv;
    test::naive_attention_backward(q, all, k, v, all, g, 4, 2, 8, causal, dq, dk, dv);

    const auto whole = reference_gradients(cfg, all, all, 3);
    expect_rows(whole.dq, dq, all, 32, "dQ");
    expect_rows(whole.dk, dk, all, 16, "dK");
    expect_rows(whole.dv, dv, all, 16, "dV");
    // Sampled rows, on one thread and on several: the same numbers.
    const std::vector<std::int64_t> qs{0, 1, 63, 64, 65, 149}, ks{0, 2, 3, 100, 149};
    const auto one = reference_gradients(cfg, qs, ks, 1), many = reference_gradients(cfg, qs, ks, 4);
    expect_rows(one.dq, dq, qs, 32, "dQ sampled");
    expect_rows(one.dk, dk, ks, 16, "dK sampled");
    expect_rows(one.dv, dv, ks, 16, "dV sampled");
    EXPECT_EQ(one.dq, many.dq);
    // Without key rows only dQ comes back.
    const auto only_q = reference_gradients(cfg, qs, {}, 2);
    expect_rows(only_q.dq, dq, qs, 32, "dQ alone");
    EXPECT_TRUE(only_q.dk.empty());
  }
}

TEST(ReferenceBackward, KeyGradientsAboveTheWorkLimitAreUncheckedWithTheReason) {
  Config cfg;
  cfg.seq = 1 << 17;
  cfg.heads = 16;
  cfg.kv_heads = 2;
  cfg.head_dim = 128;
  CheckRows sampled{{0, 5}, false}, all{{}, true};
  const auto why = key_gradients_unchecked(cfg, sampled);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("131072 rows"), std::string::npos) << *why;
  EXPECT_FALSE(key_gradients_unchecked(cfg, all).has_value());
  cfg.seq = 1 << 15;  // 2^41 multiply-adds, causal: the limit itself
  EXPECT_FALSE(key_gradients_unchecked(cfg, sampled).has_value());
}

TEST(ReferenceBackward, GradientToleranceWidensWithPrecisionAndTheBf16Ring) {
  Config cfg;
  cfg.seq = 4096;
  cfg.head_dim = 128;
  cfg.cp = 8;
  cfg.dtype = DType::float64;
  const double f64 = gradient_tolerance_for(cfg).first;
  cfg.dtype = DType::float32;
  const double f32 = gradient_tolerance_for(cfg).first;
  cfg.dtype = DType::bfloat16;
  cfg.dkv = Dkv::follow;
  const double follow = gradient_tolerance_for(cfg).first;
  cfg.dkv = Dkv::reverse;
  const auto [reverse, why] = gradient_tolerance_for(cfg);
  EXPECT_LT(f64, f32);
  EXPECT_LT(f32, follow);
  EXPECT_LT(follow, reverse);  // bf16 dK/dV on the wire at each of 7 hops
  EXPECT_NE(why.find("reverse"), std::string::npos);
}

}  // namespace
}  // namespace rb::ring
