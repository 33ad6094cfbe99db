// libFuzzer target: the strict number reader (every numeric flag) and the results files' version
// parser. Any text either reads as a value that is finite, normal or zero, within the range asked,
// and reads back the same from its own shortest spelling, or fails with rb::InputError; a version
// either parses to three parts that spell it back, or is refused. Anything else aborts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/strict_number.hpp"
#include "reports/results/results_reader.hpp"

namespace {

void require(bool ok, const char* what, std::string_view text) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_numbers: %s for input of %zu bytes\n", what, text.size());
  std::abort();
}

// Whether parse_integer refuses `text` over the whole int64 range.
bool any_integer_refused(std::string_view text) {
  try {
    rb::parse_integer(text, "fuzz", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
  } catch (const rb::InputError&) {
    return true;
  }
  return false;
}

void check_number(std::string_view text) {
  rb::WrittenNumber n;
  try {
    n = rb::read_number(text, "fuzz");
  } catch (const rb::InputError&) {
    // Whatever read_number refuses, the readers built on it refuse too.
    require(any_integer_refused(text), "parse_integer took what read_number refused", text);
    return;
  }
  const double v = n.value;
  require(std::isfinite(v), "a value that is not finite", text);
  require(v == 0 || std::isnormal(v), "a subnormal value", text);
  require(!(v == 0 && std::signbit(v)), "negative zero", text);
  const rb::WrittenNumber again = rb::read_number(fmt::format("{}", v), "fuzz");
  require(again.value == v, "the shortest spelling reads back another value", text);
  if (n.integer) {
    require(static_cast<double>(*n.integer) == v, "the integer and the double disagree", text);
    require(rb::read_number(fmt::format("{}", *n.integer), "fuzz").integer == n.integer,
            "the integer's digits read back another integer", text);
    require(rb::parse_integer(text, "fuzz", *n.integer, *n.integer) == *n.integer, "parse_integer disagrees", text);
  } else {
    require(any_integer_refused(text), "parse_integer took a number that is not a whole int64", text);
  }
  // A range with a floor for nonzero values, as --link-gbps has: what it returns is in it.
  const rb::NumberRange link{.lo = 0, .hi = 1e6, .least_nonzero = 1e-3};
  try {
    const double x = rb::parse_number(text, "fuzz", link);
    require(x == v && (x == 0 || (x >= 1e-3 && x <= 1e6)), "parse_number returned a value out of its range", text);
  } catch (const rb::InputError&) {
    require(v != 0 && (v < 1e-3 || v > 1e6), "parse_number refused a value in its range", text);
  }
}

void check_version(std::string_view text) {
  int major = -1, minor = -1, patch = -1;
  if (!rb::reports::parse_semver(std::string(text), major, minor, patch)) return;
  require(major >= 0 && minor >= 0 && patch >= 0, "a negative version part", text);
  for (const char c : text) require((c >= '0' && c <= '9') || c == '.', "a version with a character not a digit", text);
  int a = -1, b = -1, c = -1;
  require(rb::reports::parse_semver(fmt::format("{}.{}.{}", major, minor, patch), a, b, c) && a == major &&
              b == minor && c == patch,
          "a version that does not spell back", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_number(text);
  check_version(text);
  return 0;
}
