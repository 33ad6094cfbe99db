// Message formatting for ringbench's error types.
#include "common/error.hpp"

#include <fmt/format.h>

namespace rb {
namespace {

// An error is one line a person reads: a value quoted from hostile input (a megabyte string, a
// deeply nested object) is cut, saying how much was left out.
std::string quoted(const std::string& value) {
  constexpr std::size_t kMaxQuoted = 200;
  if (value.size() <= kMaxQuoted) return value;
  return fmt::format("{}... ({} more bytes)", value.substr(0, kMaxQuoted), value.size() - kMaxQuoted);
}

}  // namespace

InputError::InputError(std::string where, std::string value, std::string rule)
    : Error(fmt::format("{}: value {} is invalid: {}", quoted(where), quoted(value), rule)),
      where_(std::move(where)),
      value_(std::move(value)),
      rule_(std::move(rule)) {}

ApiError::ApiError(const char* api, const char* file, int line, const char* call, std::string code_name)
    : Error(fmt::format("{}:{}: {} call `{}` failed: {}", file, line, api, call, code_name)) {}

void throw_api_error(const char* api, const char* file, int line, const char* call, std::string code_name) {
  throw ApiError(api, file, line, call, std::move(code_name));
}

}  // namespace rb
