// Message formatting for ringbench's error types.
#include "common/error.hpp"

#include <fmt/format.h>

#include "common/console.hpp"

namespace rb {

std::string elide(std::string_view text, std::size_t max) {
  const std::string safe = terminal_safe(text, true);
  if (safe.size() <= max) return safe;
  // Room for the gap's widest text (the whole size as the count), so the result never passes max.
  const std::size_t gap = fmt::formatted_size("[...{} bytes...]", safe.size());
  const std::size_t keep = max > gap ? max - gap : 0;
  // Both cuts on a character's first byte: the line stays UTF-8.
  auto first_byte = [&](std::size_t at) {
    return at >= safe.size() || (static_cast<unsigned char>(safe[at]) & 0xc0) != 0x80;
  };
  std::size_t head = keep / 2, tail = safe.size() - (keep - keep / 2);
  while (head > 0 && !first_byte(head)) --head;
  while (!first_byte(tail)) ++tail;
  return fmt::format("{}[...{} bytes...]{}", safe.substr(0, head), tail - head, safe.substr(tail));
}

namespace {

// The message of an InputError: at most kMaxMessage bytes. `where` and `value` come from the input
// and get 80 bytes each; the rule, ringbench's own words and the part that says what to do, gets what
// they leave (at least 160 bytes).
constexpr std::size_t kMaxMessage = 340;

std::string input_error_text(const std::string& where, const std::string& value, const std::string& rule) {
  const std::string w = elide(where, 80), v = elide(value, 80);
  const std::string head = fmt::format("{}: value {} is invalid: ", w, v);
  return head + elide(rule, kMaxMessage - head.size());
}

}  // namespace

InputError::InputError(std::string where, std::string value, std::string rule)
    : Error(input_error_text(where, value, rule)),
      where_(std::move(where)),
      value_(std::move(value)),
      rule_(std::move(rule)) {}

ApiError::ApiError(const char* api, const char* file, int line, const char* call, std::string code_name)
    : Error(fmt::format("{}:{}: {} call `{}` failed: {}", file, line, api, call, code_name)) {}

void throw_api_error(const char* api, const char* file, int line, const char* call, std::string code_name) {
  throw ApiError(api, file, line, call, std::move(code_name));
}

}  // namespace rb
