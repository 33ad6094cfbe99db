// Config names and shape checks: every error names the field, the value and the rule.
#include <gtest/gtest.h>

#include "common/config.hpp"
#include "common/error.hpp"

namespace rb {
namespace {

TEST(Config, NamesRoundTrip) {
  for (auto s : {Split::contiguous, Split::zigzag, Split::striped}) EXPECT_EQ(parse_split(to_string(s), "x"), s);
  for (auto v : {Variant::ring, Variant::allgather}) EXPECT_EQ(parse_variant(to_string(v), "x"), v);
  for (auto d : {DType::float64, DType::float32, DType::bfloat16}) EXPECT_EQ(parse_dtype(to_string(d), "x"), d);
}

TEST(Config, UnknownNameListsTheChoices) {
  try {
    parse_split("diagonal", "--split");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--split");
    EXPECT_NE(std::string(e.what()).find("'diagonal'"), std::string::npos);
    EXPECT_NE(e.rule().find("contiguous, zigzag, striped"), std::string::npos);
  }
}

TEST(Config, ShapeRules) {
  Config c;
  c.heads = 6;
  c.kv_heads = 4;
  EXPECT_THROW(c.validate_shape(), InputError);
  c.kv_heads = 3;
  EXPECT_NO_THROW(c.validate_shape());
  c.cp = 2048;
  c.seq = 1024;
  try {
    c.validate_shape();
    FAIL() << "c > S accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "cp");
    EXPECT_EQ(e.value(), "2048");
  }
  c.cp = 2;
  c.head_dim = 0;
  EXPECT_THROW(c.validate_shape(), InputError);
}

}  // namespace
}  // namespace rb
