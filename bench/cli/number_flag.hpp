// How every command declares a flag that takes a number: its text is read by the strict reader
// (common/strict_number.hpp) against the flag's range while the command line is parsed, so a bad
// value is exit 2 naming the flag before any work starts. CLI11's own conversion must not be used
// for numbers: it takes "0x10" as 16, " 5" as 5 and "1e-320" as a subnormal. check_number_flags
// refuses, at start-up, a flag declared with a bare numeric variable, so a new flag cannot skip
// the reader.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/strict_number.hpp"

namespace rb::bench {

namespace number_flag_detail {

template <typename T>
std::string default_text(const T& v) {
  return fmt::format("{}", v);
}
template <typename T>
std::string default_text(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}
template <typename T>
std::string default_text(const std::vector<T>& v) {
  return fmt::format("{}", fmt::join(v, ","));
}

template <typename T>
struct Value {
  using type = T;
};
template <typename T>
struct Value<std::optional<T>> {
  using type = T;
};

}  // namespace number_flag_detail

// A flag in a form of its own (5%, 128k, a name or a number): `read` turns its text into the value
// and reads any number in it with the strict reader.
template <typename T>
CLI::Option* add_read_flag(CLI::App* app, const std::string& name, T& target, std::function<T(const std::string&)> read,
                           const std::string& help, std::string type_name) {
  CLI::Option* opt = app->add_option_function<std::string>(
      name, [&target, read = std::move(read)](const std::string& text) { target = read(text); }, help);
  opt->type_name(std::move(type_name));
  opt->default_function([&target] { return number_flag_detail::default_text(target); });
  return opt;
}

// A comma-separated list, each item read by `read`; an empty item (`1,,2`, "") is an error, not
// dropped as CLI11's own delimiter drops it.
template <typename T>
CLI::Option* add_list_flag(CLI::App* app, const std::string& name, std::vector<T>& target,
                           std::function<T(const std::string&)> read, const std::string& help, std::string type_name) {
  CLI::Option* opt = app->add_option_function<std::vector<std::string>>(
      name,
      [&target, read = std::move(read)](const std::vector<std::string>& given) {
        target.clear();
        for (const auto& text : given) {
          for (std::size_t from = 0;;) {
            const std::size_t comma = text.find(',', from);
            target.push_back(read(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from)));
            if (comma == std::string::npos) break;
            from = comma + 1;
          }
        }
      },
      help);
  opt->type_name(std::move(type_name));
  opt->default_function([&target] { return number_flag_detail::default_text(target); });
  return opt;
}

// A real number within `range`.
inline CLI::Option* add_number_flag(CLI::App* app, const std::string& name, double& target, NumberRange range,
                                    const std::string& help, std::string type_name = "X") {
  return add_read_flag<double>(
      app, name, target, [name, range](const std::string& t) { return parse_number(t, name, range); }, help,
      std::move(type_name));
}

// A whole number in [lo, hi], into an int, an int64, a size_t or an optional (unset: not given).
template <typename Int>
CLI::Option* add_integer_flag(CLI::App* app, const std::string& name, Int& target, std::int64_t lo, std::int64_t hi,
                              const std::string& help, std::string type_name = "N") {
  using V = typename number_flag_detail::Value<Int>::type;
  static_assert(std::is_integral_v<V>);
  return add_read_flag<Int>(
      app, name, target,
      [name, lo, hi](const std::string& t) { return Int(static_cast<V>(parse_integer(t, name, lo, hi))); }, help,
      std::move(type_name));
}

// Throws std::logic_error naming any option of any subcommand whose type is one of CLI11's
// numeric types (INT, UINT, FLOAT, NUMBER): it was declared with a bare numeric variable.
void check_number_flags(const CLI::App& app);

}  // namespace rb::bench
