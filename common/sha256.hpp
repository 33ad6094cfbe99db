// SHA-256 (FIPS 180-4) of a short text, for digests that must not collide (the packed documents'
// configuration ids, common/documents.hpp). Written here rather than taken from OpenSSL: none of
// ringbench's dependencies has one, and a library for one function would be one more -dev package
// the GPU node lacks (docs/distributed.md). Held to FIPS 180-4's test vectors in
// tests/common/test_sha256.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace rb {

std::array<std::uint8_t, 32> sha256(std::string_view text);

}  // namespace rb
