// Errors shared by every layer. Library code throws; only the command line turns an error into an
// exit code (2 for InputError, 1 for a failed check, see docs/cli.md), so it can still write what it
// has measured before it exits.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace rb {

// Any failure inside ringbench that is not the user's input.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `text` as an error line quotes it: made terminal_safe (common/console.hpp) with its line ends
// too, and when longer than `max` bytes cut in the middle, keeping both ends (a path's folder and its
// file name, a JSON path's leaf) with the number of bytes left out between them.
std::string elide(std::string_view text, std::size_t max);

// Bad input: names where it came from (flag, file, JSON path), the value and the rule it breaks.
// The message is one short line whatever the input, at most 340 bytes: where and value elided to 80
// bytes each, the rule to what they leave; the accessors keep all three whole.
class InputError : public Error {
 public:
  InputError(std::string where, std::string value, std::string rule);
  const std::string& where() const { return where_; }
  const std::string& value() const { return value_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string where_, value_, rule_;
};

// The device or process can no longer run anything (a sticky CUDA error, a lost peer): the sweep
// stops, writing everything measured so far.
class FatalError : public Error {
 public:
  using Error::Error;
};

// A call into an outside library (CUDA, NCCL, MPI, CUPTI) failed.
class ApiError : public Error {
 public:
  ApiError(const char* api, const char* file, int line, const char* call, std::string code_name);
};

[[noreturn]] void throw_api_error(const char* api, const char* file, int line, const char* call, std::string code_name);

}  // namespace rb

// Check macros for outside APIs. Each throws rb::ApiError with file:line, the call text and the
// library's name for the error. The CUDA/NCCL/MPI/CUPTI variants live beside the code that includes
// those headers (kernels/cuda_check.hpp and friends) so this header stays free of them.
#define RB_CHECK_API(api, ok_expr, call, name_expr)                                  \
  do {                                                                               \
    if (!(ok_expr)) ::rb::throw_api_error(api, __FILE__, __LINE__, call, name_expr); \
  } while (0)
