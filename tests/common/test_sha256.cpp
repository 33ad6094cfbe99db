// SHA-256 against FIPS 180-4's test vectors (and a two-block message), so a configuration id's digest is
// the standard one: `hashlib.sha256(b"5+30+13").hexdigest()` names what ringbench names.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "common/sha256.hpp"

namespace rb {
namespace {

std::string hex(std::string_view text) {
  std::string out;
  for (const auto b : sha256(text)) out += fmt::format("{:02x}", b);
  return out;
}

TEST(Sha256, MatchesTheStandardsVectors) {
  EXPECT_EQ(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

}  // namespace
}  // namespace rb
