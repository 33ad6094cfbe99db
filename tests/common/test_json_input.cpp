// The bounded JSON parser for outside input: depth limit at its exact edge, duplicate keys at any
// level, malformed text with its byte, and error messages that stay one short line.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/bounded_input.hpp"
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

TEST(JsonInput, ANulByteIsNamedNotTakenForTheEnd) {
  const std::string text("{\"a\": 1,\0 \"b\": 2}", 17);
  const std::string msg = error_of(text);
  EXPECT_NE(msg.find("t.json: byte 9"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NUL byte"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("end of input"), std::string::npos) << msg;
}

TEST(JsonInput, TheValueLimitStopsTheParseWhereItIsCrossed) {
  // 10 values and 1 array: at a limit of 11 it parses, at 10 it is refused before the last value.
  const std::string ten = "[0,0,0,0,0,0,0,0,0,0]";
  EXPECT_EQ(parse_json_input(ten, "t", "x", {11, 11}).size(), 10u);
  try {
    parse_json_input(ten, "t.json", "a test document", {10, 10});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 10 values"), std::string::npos) << e.what();
  }
  // Object members count as values too: {"a":0} is the object, the member and the value.
  EXPECT_THROW(parse_json_input(R"({"a":0,"b":0})", "t", "x", {4, 4}), InputError);
  EXPECT_NO_THROW(parse_json_input(R"({"a":0,"b":0})", "t", "x", {5, 5}));
}

struct Streamed {
  std::vector<std::string> elements, pointers;
  std::vector<std::size_t> indices;
  nlohmann::json doc;
};

Streamed stream_parse(const std::string& text, const std::string& member, const JsonLimits& limits = {}) {
  Streamed out;
  JsonArrayStream stream{member, [&](nlohmann::json&& e, const std::string& pointer, std::size_t i) {
                           out.elements.push_back(e.dump());
                           out.pointers.push_back(pointer);
                           out.indices.push_back(i);
                         }};
  std::istringstream in(text);
  out.doc = parse_json_stream(in, "t.json", "a test document", &stream, limits);
  return out;
}

TEST(JsonStream, HandsOnTheNamedMembersElementsAndKeepsTheRest) {
  const Streamed s = stream_parse(R"({"meta": {"a": [1, 2]}, "ev": [{"x": [1]}, 2, "s", [3]], "tail": 1})", "ev");
  EXPECT_EQ(s.elements, (std::vector<std::string>{R"({"x":[1]})", "2", "\"s\"", "[3]"}));
  EXPECT_EQ(s.indices, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(s.pointers.front(), "/ev");
  EXPECT_EQ(s.doc.dump(), R"({"ev":[],"meta":{"a":[1,2]},"tail":1})");
}

TEST(JsonStream, ARootArrayIsStreamedAndNestedNamesTakeNoPart) {
  const Streamed root = stream_parse(R"([{"ev": [1]}, {}])", "ev");
  EXPECT_EQ(root.elements, (std::vector<std::string>{R"({"ev":[1]})", "{}"}));
  EXPECT_EQ(root.pointers.front(), "");
  EXPECT_EQ(root.doc.dump(), "[]");
  // Only the root object's member streams; a deeper array of the same name is kept.
  const Streamed deep = stream_parse(R"({"a": {"ev": [1, 2]}})", "ev");
  EXPECT_TRUE(deep.elements.empty());
  EXPECT_EQ(deep.doc.dump(), R"({"a":{"ev":[1,2]}})");
}

TEST(JsonStream, EachElementHasItsOwnLimitAndForgottenElementsCostNothing) {
  std::string many = R"({"ev": [)";
  for (int i = 0; i < 1000; ++i) many += std::string(i ? "," : "") + "[1,2,3]";
  many += "]}";
  // 1,000 elements of 4 values each pass a document limit of 10: only the kept values count there.
  EXPECT_EQ(stream_parse(many, "ev", {10, 4}).elements.size(), 1000u);
  EXPECT_THROW(stream_parse(many, "ev", {10, 3}), InputError);
  EXPECT_THROW(stream_parse(many, "other", {10, 4}), InputError);
}

TEST(JsonStream, ChecksDepthAndDuplicatesInsideStreamedElements) {
  EXPECT_THROW(stream_parse(R"({"ev": [{"k": 1, "k": 2}]})", "ev"), InputError);
  EXPECT_THROW(stream_parse("{\"ev\": [" + nested_arrays(kMaxJsonDepth) + "]}", "ev"), InputError);
  EXPECT_THROW(stream_parse(R"({"ev": [1, 2], "ev": []})", "ev"), InputError);
}

TEST(BoundedInputStream, RefusesTheByteAfterTheCapAndANulInAnyChunk) {
  const auto from = [](const std::string& text, std::size_t chunk) {
    return [text, chunk, at = std::size_t{0}](char* buf, std::size_t capacity) mutable {
      const std::size_t n = std::min({capacity, chunk, text.size() - at});
      std::memcpy(buf, text.data() + at, n);
      at += n;
      return n;
    };
  };
  const auto too_large = [] { throw InputError("t", "big", "too large"); };
  {
    BoundedInput in(from("[1, 2]", 2), 6, too_large, "t.json", "x");
    std::istream is(&in);
    EXPECT_EQ(parse_json_stream(is, "t.json", "x").size(), 2u);
    EXPECT_EQ(in.bytes_read(), 6u);
  }
  {
    BoundedInput in(from("[1, 2] ", 2), 6, too_large, "t.json", "x");
    std::istream is(&in);
    EXPECT_THROW(parse_json_stream(is, "t.json", "x"), InputError);
  }
  BoundedInput nul(from(std::string("[1, 2,\0 3]", 10), 3), 100, too_large, "t.json", "x");
  std::istream is(&nul);
  try {
    parse_json_stream(is, "t.json", "x");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: byte 7"), std::string::npos) << e.what();
  }
}

TEST(ReadJsonFile, StreamsAFileAndNamesASymlinkLoop) {
  const auto dir = std::filesystem::temp_directory_path() / ("rb-json-file-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.json") << R"({"a": [1, 2, 3]})";
  EXPECT_EQ(read_json_file(dir / "a.json", "f", "x")["a"].size(), 3u);
  std::filesystem::create_symlink(dir / "loop", dir / "loop");
  try {
    read_json_file(dir / "loop", "--in", "x");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("symlink loop"), std::string::npos) << e.what();
  }
  std::ofstream(dir / "bad.json") << "{\"a\": [1,";
  try {
    read_json_file(dir / "bad.json", "f", "x");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: byte 9"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb
