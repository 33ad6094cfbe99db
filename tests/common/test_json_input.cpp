// The bounded JSON parser for outside input: depth limit at its exact edge, duplicate keys at any
// level, malformed text with its byte, and error messages that stay one short line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/error.hpp"
#include "common/json_input.hpp"

namespace rb {
namespace {

std::string nested_arrays(int depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); }

std::string nested_objects(int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += "{\"a\":";
  return s + "1" + std::string(depth, '}');
}

std::string error_of(const std::string& text) {
  try {
    parse_json_input(text, "t.json", "a test document");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonInput, AcceptsExactlyTheDepthLimit) {
  EXPECT_EQ(parse_json_input(nested_arrays(kMaxJsonDepth), "t", "x").dump().size(), 2u * kMaxJsonDepth + 1);
  EXPECT_TRUE(parse_json_input(nested_objects(kMaxJsonDepth), "t", "x").is_object());
  EXPECT_NE(error_of(nested_arrays(kMaxJsonDepth + 1)).find("nested more than 128"), std::string::npos);
  EXPECT_NE(error_of(nested_objects(kMaxJsonDepth + 1)).find("nested more than 128"), std::string::npos);
}

TEST(JsonInput, HostileDepthIsAShortErrorNotACrash) {
  for (int depth : {30000, 100000, 200000}) {
    const std::string msg = error_of(nested_arrays(depth));
    EXPECT_NE(msg.find("t.json"), std::string::npos) << depth;
    EXPECT_LT(msg.size(), 300u) << depth;
    EXPECT_LT(error_of(nested_objects(depth)).size(), 300u) << depth;
  }
}

TEST(JsonInput, DuplicateKeysAreRefusedAtEveryLevel) {
  EXPECT_NE(error_of(R"({"sweep": {}, "sweep": {}})").find("\"sweep\" given twice"), std::string::npos);
  EXPECT_NE(error_of(R"({"a": [{"x": 1, "y": 2, "x": 3}]})").find("\"x\" given twice"), std::string::npos);
  // The same key in sibling objects, or in an object and its child, is no duplicate.
  EXPECT_NO_THROW(parse_json_input(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})", "t", "x"));
}

TEST(JsonInput, MalformedTextNamesTheByte) {
  const std::string msg = error_of(R"({"sweep": [1,)");
  EXPECT_NE(msg.find("t.json: byte 13"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"x": 1e999})").find("1e999"), std::string::npos);
}

TEST(InputErrorText, QuotesAtMost200BytesOfAValue) {
  const InputError e("field", std::string(100000, 'v'), "rule");
  EXPECT_LT(std::string(e.what()).size(), 300u);
  EXPECT_NE(std::string(e.what()).find("(99800 more bytes)"), std::string::npos);
  EXPECT_EQ(e.value().size(), 100000u);  // the accessor keeps it whole
}

TEST(ReadInputFile, RefusesFoldersDevicesAndOversizedFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("rb-json-input-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_THROW(read_input_file(dir, "f", 1 << 20), InputError);
  const auto zero = dir / "zero";
  // A character device made here (1,5 is /dev/zero): reading it would never end.
  if (::mknod(zero.c_str(), S_IFCHR | 0600, makedev(1, 5)) == 0) {
    try {
      read_input_file(zero, "f", 1 << 20);
      ADD_FAILURE() << "a device was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
  }
  const auto big = dir / "big.json";
  std::ofstream(big) << std::string(3000, ' ') << "{}";
  try {
    read_input_file(big, "f", 1024, "--max-x");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("raise --max-x"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_input_file(big, "f", 4096).size(), 3002u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb
