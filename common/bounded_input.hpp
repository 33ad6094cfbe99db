// A stream over outside input that enforces, as the bytes arrive, what a text parser cannot see:
// at most `max_bytes` (a pipe or a decompressor has no size to check up front) and no NUL byte
// (nlohmann's lexer reads NUL as the end of input, so a binary file was "unexpected end of input").
// Parsers read it through std::istream, so the whole text never has to sit in memory.
#pragma once

#include <cstddef>
#include <functional>
#include <streambuf>
#include <string>
#include <vector>

namespace rb {

class BoundedInput : public std::streambuf {
 public:
  // Fills up to `capacity` bytes and returns how many; 0 means the end. Throws on a read error.
  using ReadChunk = std::function<std::size_t(char* buf, std::size_t capacity)>;
  // Throws the error for input beyond the cap (the caller knows which flag raises it).
  using TooLarge = std::function<void()>;

  BoundedInput(ReadChunk read, std::size_t max_bytes, TooLarge too_large, std::string source, std::string what);

  std::size_t bytes_read() const { return total_; }

 protected:
  int_type underflow() override;

 private:
  ReadChunk read_;
  std::size_t max_bytes_;
  TooLarge too_large_;
  std::string source_, what_;
  std::vector<char> buf_;
  std::size_t total_ = 0;
};

// The error for a NUL byte at 1-based offset `byte` of `source`, shared with in-memory parses.
[[noreturn]] void throw_nul_byte(const std::string& source, const std::string& what, std::size_t byte);

}  // namespace rb
