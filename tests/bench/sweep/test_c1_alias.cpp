// Which c = 1 configurations are one computation (bench/sweep/c1_alias.hpp), and an alias's record.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "bench/sweep/c1_alias.hpp"
#include "bench/sweep/result_record.hpp"
#include "reports/results/config_json.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {
namespace {

Config make(int cp, Split split, Variant variant, std::int64_t seq = 256) {
  Config c;
  c.seq = seq;
  c.cp = cp;
  c.split = split;
  c.variant = variant;
  c.heads = 4;
  c.kv_heads = 2;
  c.head_dim = 16;
  c.dtype = DType::float32;
  return c;
}

TEST(C1Alias, OnlyCEqualsOneSplitsAndVariantsAreAliasesOfTheFirst) {
  const std::vector<Config> configs = {make(1, Split::zigzag, Variant::ring),
                                       make(1, Split::zigzag, Variant::allgather),
                                       make(2, Split::zigzag, Variant::ring),
                                       make(1, Split::contiguous, Variant::ring),
                                       make(2, Split::contiguous, Variant::ring),
                                       make(1, Split::striped, Variant::ring_bidirectional),
                                       make(1, Split::contiguous, Variant::ring, 512)};
  const auto a = c1_aliases(configs, std::vector<std::string>(configs.size()));
  const std::vector<std::optional<std::size_t>> want =
      {std::nullopt, 0, std::nullopt, 0, std::nullopt, 0, std::nullopt};  // another S is another computation
  EXPECT_EQ(a, want);
}

// At c = 1 an all-to-all of heads moves nothing either (ulysses' U is c = 1; the hybrid's must be 1,
// the one group U divides): both are the ring's computation, whatever the backward design.
TEST(C1Alias, UlyssesAndTheHybridAtCOneAreTheRingsComputation) {
  Config ulysses = make(1, Split::zigzag, Variant::ulysses), hybrid = make(1, Split::striped, Variant::hybrid);
  ulysses.ulysses_degree = 1;  // as the sweep expands them (exchange_degree)
  hybrid.ulysses_degree = 1;
  Config follow = hybrid;
  follow.phase = Phase::fwd_bwd;
  follow.dkv = Dkv::follow;
  Config reverse = make(1, Split::zigzag, Variant::ring);
  reverse.phase = Phase::fwd_bwd;
  const std::vector<Config> configs = {make(1, Split::zigzag, Variant::ring),   ulysses, hybrid, reverse, follow,
                                       make(2, Split::zigzag, Variant::ulysses)};
  const auto a = c1_aliases(configs, std::vector<std::string>(configs.size()));
  EXPECT_EQ(a, (std::vector<std::optional<std::size_t>>{std::nullopt, 0, 0, std::nullopt, 3, std::nullopt}));
}

TEST(C1Alias, AnInvalidConfigurationIsNeitherAliasNorAliased) {
  // zigzag needs S % 2c == 0: at S = 255 it is invalid while contiguous runs, and becomes the one
  // measured.
  const std::vector<Config> configs = {make(1, Split::zigzag, Variant::ring, 255),
                                       make(1, Split::contiguous, Variant::ring, 255),
                                       make(1, Split::striped, Variant::ring, 255)};
  const auto a = c1_aliases(configs, {"the zigzag split needs S % (2c) == 0", "", ""});
  EXPECT_EQ(a, (std::vector<std::optional<std::size_t>>{std::nullopt, std::nullopt, 1}));
}

TEST(C1Alias, OtherFieldsKeepConfigurationsApart) {
  Config other_kernel = make(1, Split::contiguous, Variant::ring);
  other_kernel.kernel = Kernel::cudnn;
  Config other_dtype = make(1, Split::contiguous, Variant::ring);
  other_dtype.dtype = DType::float64;
  const std::vector<Config> configs = {make(1, Split::zigzag, Variant::ring), other_kernel, other_dtype};
  const auto a = c1_aliases(configs, std::vector<std::string>(3));
  EXPECT_EQ(a, (std::vector<std::optional<std::size_t>>(3)));
}

TEST(C1Alias, TheRecordIsTheMeasurementUnderTheAliasOwnConfigAndPlan) {
  const Config ran = make(1, Split::zigzag, Variant::ring), alias = make(1, Split::contiguous, Variant::allgather);
  reports::RunRecord measured = result_record(ran, RunStatus::ok, "");
  measured.plan = plan_record(ring::make_plan(ran));
  measured.timing.present = true;
  measured.timing.median_ms = 2.5;
  const reports::RunRecord r = alias_record(measured, alias);
  EXPECT_EQ(r.alias_of, reports::config_id(ran));
  EXPECT_EQ(r.config.id, reports::config_id(alias));
  EXPECT_EQ(r.config.split, "contiguous");
  EXPECT_EQ(r.timing.median_ms, 2.5);
  EXPECT_EQ(r.status, RunStatus::ok);
  // zigzag's one rank holds two segments; contiguous's one
  ASSERT_TRUE(measured.plan.per_rank && r.plan.per_rank);
  EXPECT_EQ((*measured.plan.per_rank)[0].segments.size(), 2u);
  EXPECT_EQ((*r.plan.per_rank)[0].segments.size(), 1u);
}

}  // namespace
}  // namespace rb::bench
