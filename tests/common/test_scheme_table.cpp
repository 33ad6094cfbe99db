// The one table of split schemes and of variants: names round-trip through parsing, the error for
// an unknown name lists the table, and the results schema's enums hold exactly the table's names
// (so a new scheme or variant cannot be written to results.json without the schema knowing it).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "common/error.hpp"
#include "common/scheme_table.hpp"

#ifndef RINGBENCH_RESULTS_SCHEMA
#error "RINGBENCH_RESULTS_SCHEMA must name reports/results/results.schema.json"
#endif

namespace rb {
namespace {

TEST(SchemeTable, NamesRoundTripAndFollowTheEnums) {
  for (const Split s : every_split()) EXPECT_EQ(parse_split(to_string(s), "x"), s);
  for (const Variant v : every_variant()) EXPECT_EQ(parse_variant(to_string(v), "x"), v);
  EXPECT_EQ(to_string(Variant::ring_bidirectional), "ring-bidirectional");
  EXPECT_EQ(variant_names(), "ring, allgather, ring-bidirectional, ulysses, hybrid");
  EXPECT_EQ(split_names(), "contiguous, zigzag, striped, doc-zigzag");
  for (const auto& i : variant_table()) EXPECT_FALSE(i.summary.empty()) << i.name;
  for (const auto& i : split_table()) EXPECT_FALSE(i.summary.empty()) << i.name;
}

TEST(SchemeTable, AnUnknownNameIsRefusedWithTheTable) {
  try {
    (void)parse_variant("ring-sideways", "--variant");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--variant");
    EXPECT_NE(std::string(e.what()).find("ring, allgather, ring-bidirectional, ulysses, hybrid"), std::string::npos)
        << e.what();
  }
}

TEST(SchemeTable, ResultsSchemaEnumsAreTheTables) {
  std::ifstream in(RINGBENCH_RESULTS_SCHEMA);
  ASSERT_TRUE(in) << RINGBENCH_RESULTS_SCHEMA;
  const auto schema = nlohmann::json::parse(in);
  const auto& props = schema.at("$defs").at("config").at("properties");
  std::set<std::string> splits, variants;
  for (const auto& i : split_table()) splits.emplace(i.name);
  for (const auto& i : variant_table()) variants.emplace(i.name);
  EXPECT_EQ(props.at("split").at("enum").get<std::set<std::string>>(), splits);
  EXPECT_EQ(props.at("variant").at("enum").get<std::set<std::string>>(), variants);
}

}  // namespace
}  // namespace rb
