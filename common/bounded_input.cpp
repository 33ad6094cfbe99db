// The byte- and NUL-checking input stream (see bounded_input.hpp).
#include "common/bounded_input.hpp"

#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb {

BoundedInput::BoundedInput(ReadChunk read, std::size_t max_bytes, TooLarge too_large, std::string source,
                           std::string what)
    : read_(std::move(read)),
      max_bytes_(max_bytes),
      too_large_(std::move(too_large)),
      source_(std::move(source)),
      what_(std::move(what)),
      buf_(std::size_t{1} << 16) {}

BoundedInput::int_type BoundedInput::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const std::size_t n = read_(buf_.data(), buf_.size());
  if (n == 0) return traits_type::eof();
  if (total_ + n > max_bytes_) {
    too_large_();
    throw Error("BoundedInput: the too-large handler returned");
  }
  if (const void* nul = std::memchr(buf_.data(), '\0', n); nul != nullptr)
    throw_nul_byte(source_, what_, total_ + static_cast<std::size_t>(static_cast<const char*>(nul) - buf_.data()) + 1);
  total_ += n;
  setg(buf_.data(), buf_.data(), buf_.data() + n);
  return traits_type::to_int_type(*gptr());
}

void throw_nul_byte(const std::string& source, const std::string& what, std::size_t byte) {
  throw InputError(fmt::format("{}: byte {}", source, byte), "a NUL byte",
                   fmt::format("{} is text and holds no NUL byte (is it a binary file?)", what));
}

}  // namespace rb
