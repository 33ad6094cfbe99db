// The one reader of numbers given as text (every numeric flag of every command). A number is
// written as JSON writes it, so a flag and the profile field beside it take the same text: an
// optional '-', digits without a leading zero, an optional fraction and exponent. Nothing else is
// a number: no '+', no hex, no inf or nan, no space before or after, no trailing character.
// std::stod took "0x10" as 16 and " 5" as 5; a double parser alone takes "1e-320" as a subnormal
// that rounds a link's transfer time past int64, or "1e-10" GiB as zero bytes ("no limit").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rb {

// The values a number may take. `least_nonzero` serves a quantity where 0 means something (off,
// no limit) and a tiny nonzero value would round to 0 once converted to nanoseconds or bytes: a
// nonzero value must then be at least this.
struct NumberRange {
  double lo = 0;
  double hi = 0;
  bool lo_open = false, hi_open = false;
  double least_nonzero = 0;
  std::string unit{};        // printed after the range: " GiB"
  std::string zero_means{};  // printed as "(0: <zero_means>)"
};

// What a text reads as before any range: the nearest double, and the exact integer when the text
// is a whole number within int64 ("1e3", "2.50e1" and "9223372036854775807" are; "0.5" is not).
struct WrittenNumber {
  double value = 0;
  std::optional<std::int64_t> integer;
};

// Throws InputError(where, text, rule) unless `text` is a number as above, finite, and not a
// nonzero value too small for a normal double (it would round to 0 or lose its precision).
WrittenNumber read_number(std::string_view text, std::string_view where);

// read_number, then within `range`.
double parse_number(std::string_view text, std::string_view where, const NumberRange& range);

// read_number, then a whole number in [lo, hi], converted exactly (never through a double).
std::int64_t parse_integer(std::string_view text, std::string_view where, std::int64_t lo, std::int64_t hi);

// The rules as a message says them: "must be a number in [0, 1000000] Gbit/s (0: unpaced)".
std::string describe(const NumberRange& range);
std::string describe_integer(std::int64_t lo, std::int64_t hi);

// Whether `text` is written as a number, by the grammar alone: "1e999" is, "0x10" and "inf" are not.
bool written_as_number(std::string_view text);

// Whether a text begins as a number would (a digit, a sign or a point), so that a flag taking a
// name or a number reports a malformed number by the number rules.
bool looks_like_number(std::string_view text);

}  // namespace rb
