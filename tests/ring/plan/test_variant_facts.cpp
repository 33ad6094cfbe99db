// The facts of a variant that layers below ring/ read from its row of common/scheme_table.hpp (the
// head exchange's groups, whether --dkv is a choice) are what its class in ring/plan/ does, for every
// variant, so the table cannot drift from the classes.
#include <gtest/gtest.h>

#include "common/scheme_table.hpp"
#include "ring/plan/variant_scheme.hpp"

namespace rb::ring {
namespace {

TEST(VariantFacts, TheTableSaysWhatTheClassDoes) {
  for (const Variant v : every_variant()) {
    Config cfg;
    cfg.cp = 4;
    cfg.seq = 64;
    cfg.heads = 8;
    cfg.kv_heads = 2;
    cfg.variant = v;
    cfg.ulysses_degree = 2;
    SCOPED_TRACE(std::string(to_string(v)));
    const auto scheme = make_variant_scheme(v);
    const HeadExchange x = scheme->head_exchange(cfg, cfg.seq / cfg.cp);
    EXPECT_EQ(x.active(), exchanges_heads(v));
    EXPECT_EQ(scheme->exchanges_heads(), exchanges_heads(v));
    EXPECT_EQ(x.degree, exchange_degree(cfg));
    // ulysses_degree matters where changing it changes the exchange.
    Config other = cfg;
    other.ulysses_degree = 4;
    EXPECT_EQ(scheme->head_exchange(other, other.seq / other.cp).degree != x.degree, ulysses_degree_matters(v));
    // --dkv is a choice where the two designs differ and something moves K/V between members.
    const std::int64_t rows = cfg.seq / cfg.cp * x.degree;
    const GradFlow reverse = scheme->backward(x.groups, rows, Dkv::reverse, DType::float32).grads;
    const GradFlow follow = scheme->backward(x.groups, rows, Dkv::follow, DType::float32).grads;
    EXPECT_EQ(reverse != follow && x.groups > 1, dkv_matters(Phase::fwd_bwd, v));
    EXPECT_FALSE(dkv_matters(Phase::fwd, v));
  }
}

TEST(VariantFacts, TheHybridsLabelNamesItsGroup) {
  EXPECT_EQ(strategy_label("hybrid", 2), "hybrid U=2");
  EXPECT_EQ(strategy_label("ulysses", 4), "ulysses");
  EXPECT_EQ(strategy_label("ring", std::nullopt), "ring");
  EXPECT_EQ(strategy_label("hybrid", std::nullopt), "hybrid");
  EXPECT_EQ(strategy_label("not-a-variant", 3), "not-a-variant");
}

}  // namespace
}  // namespace rb::ring
