// Reading numbers strictly: the grammar is checked here, character by character, before
// std::from_chars converts, because from_chars alone takes "inf", "nan" and forms JSON refuses.
#include "common/strict_number.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb {
namespace {

// Short enough that a rule with a range after it stays whole in an error line (160 bytes).
constexpr const char* kFormRule = "must be a decimal number as in JSON (12, 0.5, 1e3: no hex, inf, nan, '+' or space)";
constexpr const char* kTooLarge = "is beyond 1.8e308, the largest double";
constexpr const char* kTooSmall = "is nonzero but under 2.2e-308 (the smallest normal double), so it rounds to 0";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Beyond any exponent a double or an int64 can use, and far from int64's own limit however many
// fraction digits are subtracted from it.
constexpr std::int64_t kExponentCap = 1'000'000'000;

// The digits of a number without sign, point and exponent, leading zeros dropped, and the power of
// ten that scales them: "0.0250e2" is {"250", -2}.
struct Decimal {
  bool negative = false;
  std::string digits;
  std::int64_t exponent = 0;
};

// Checks the grammar of the whole text; nullopt when it is not a number.
std::optional<Decimal> scan(std::string_view t) {
  Decimal d;
  std::size_t i = 0;
  const std::size_t n = t.size();
  if (i < n && t[i] == '-') {
    d.negative = true;
    ++i;
  }
  if (i == n || !is_digit(t[i])) return std::nullopt;
  std::int64_t fraction_digits = 0;
  auto take = [&](char c) {
    if (c != '0' || !d.digits.empty()) d.digits.push_back(c);
  };
  if (t[i] == '0') {
    ++i;
    if (i < n && is_digit(t[i])) return std::nullopt;  // a leading zero: "010" is octal to some readers
  } else {
    while (i < n && is_digit(t[i])) take(t[i++]);
  }
  if (i < n && t[i] == '.') {
    ++i;
    if (i == n || !is_digit(t[i])) return std::nullopt;
    for (; i < n && is_digit(t[i]); ++i) {
      take(t[i]);
      // Zeros before the first significant digit are counted too: 0.001 is {"1", -3}.
      ++fraction_digits;
    }
  }
  std::int64_t exponent = 0;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool negative_exponent = false;
    if (i < n && (t[i] == '+' || t[i] == '-')) negative_exponent = t[i++] == '-';
    if (i == n || !is_digit(t[i])) return std::nullopt;
    for (; i < n && is_digit(t[i]); ++i) exponent = std::min(kExponentCap, exponent * 10 + (t[i] - '0'));
    if (negative_exponent) exponent = -exponent;
  }
  if (i != n) return std::nullopt;
  d.exponent = exponent - fraction_digits;
  return d;
}

// The exact integer a decimal is, when it is whole and within int64.
std::optional<std::int64_t> exact_integer(const Decimal& d) {
  if (d.digits.empty()) return 0;
  std::string_view kept = d.digits;
  std::size_t zeros_after = 0;
  if (d.exponent < 0) {
    const auto drop = static_cast<std::size_t>(-d.exponent);
    const std::size_t trailing_zeros = kept.size() - kept.find_last_not_of('0') - 1;
    if (trailing_zeros < drop) return std::nullopt;  // a fraction is left
    kept.remove_suffix(drop);
  } else {
    zeros_after = static_cast<std::size_t>(d.exponent);
  }
  if (kept.size() + zeros_after > 19) return std::nullopt;  // at least 1e19
  std::uint64_t magnitude = 0;
  for (const char c : kept) magnitude = magnitude * 10 + static_cast<std::uint64_t>(c - '0');
  for (std::size_t i = 0; i < zeros_after; ++i) magnitude *= 10;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!d.negative)
    return magnitude <= kMax ? std::optional<std::int64_t>(static_cast<std::int64_t>(magnitude)) : std::nullopt;
  if (magnitude > kMax + 1) return std::nullopt;
  return magnitude == kMax + 1 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(magnitude);
}

std::string bound(double v) { return fmt::format("{}", v); }

bool in_range(double v, const NumberRange& r) {
  if (r.least_nonzero > 0 && v != 0 && std::fabs(v) < r.least_nonzero) return false;
  const bool above_lo = r.lo_open ? v > r.lo : v >= r.lo;
  const bool below_hi = r.hi_open ? v < r.hi : v <= r.hi;
  return above_lo && below_hi;
}

}  // namespace

WrittenNumber read_number(std::string_view text, std::string_view where) {
  const std::string value(text);
  if (text.empty()) throw InputError(std::string(where), "''", "must be a number, not empty");
  const auto decimal = scan(text);
  if (!decimal) throw InputError(std::string(where), value, kFormRule);
  WrittenNumber out;
  out.integer = exact_integer(*decimal);
  if (decimal->digits.empty()) return out;  // zero, also "-0" and "0e999"
  // The digits 0.DDD scaled by 10^magnitude: beyond 309 no double holds it, below -308 none
  // keeps it normal, so from_chars is not asked about an exponent of a billion.
  const std::int64_t magnitude = static_cast<std::int64_t>(decimal->digits.size()) + decimal->exponent;
  if (magnitude > 310) throw InputError(std::string(where), value, kTooLarge);
  if (magnitude < -308) throw InputError(std::string(where), value, kTooSmall);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range)
    throw InputError(std::string(where), value, magnitude > 0 ? kTooLarge : kTooSmall);
  if (ec != std::errc() || end != text.data() + text.size()) throw InputError(std::string(where), value, kFormRule);
  if (std::isinf(v)) throw InputError(std::string(where), value, kTooLarge);
  if (!std::isnormal(v)) throw InputError(std::string(where), value, kTooSmall);
  out.value = v;
  return out;
}

double parse_number(std::string_view text, std::string_view where, const NumberRange& range) {
  WrittenNumber n;
  try {
    n = read_number(text, where);
  } catch (const InputError& e) {
    throw InputError(e.where(), e.value(), fmt::format("{}; {}", e.rule(), describe(range)));
  }
  if (!in_range(n.value, range)) throw InputError(std::string(where), std::string(text), describe(range));
  return n.value;
}

std::int64_t parse_integer(std::string_view text, std::string_view where, std::int64_t lo, std::int64_t hi) {
  WrittenNumber n;
  try {
    n = read_number(text, where);
  } catch (const InputError& e) {
    throw InputError(e.where(), e.value(), fmt::format("{}; {}", e.rule(), describe_integer(lo, hi)));
  }
  if (!n.integer && std::trunc(n.value) != n.value)
    throw InputError(std::string(where), std::string(text), fmt::format("is not whole; {}", describe_integer(lo, hi)));
  if (!n.integer || *n.integer < lo || *n.integer > hi)
    throw InputError(std::string(where), std::string(text), describe_integer(lo, hi));
  return *n.integer;
}

std::string describe(const NumberRange& r) {
  const std::string zero = r.zero_means.empty() ? "" : fmt::format(" (0: {})", r.zero_means);
  if (r.least_nonzero > 0 && r.lo <= 0 && !r.lo_open)
    return fmt::format("must be 0 or a number in [{}, {}{}{}{}", bound(r.least_nonzero), bound(r.hi),
                       r.hi_open ? ")" : "]", r.unit, zero);
  return fmt::format("must be a number in {}{}, {}{}{}{}", r.lo_open ? "(" : "[", bound(r.lo), bound(r.hi),
                     r.hi_open ? ")" : "]", r.unit, zero);
}

std::string describe_integer(std::int64_t lo, std::int64_t hi) {
  if (lo == 1) return fmt::format("must be a positive integer, at most {} (1e3 is 1000)", hi);
  return fmt::format("must be an integer in [{}, {}] (1e3 is 1000)", lo, hi);
}

bool written_as_number(std::string_view text) { return scan(text).has_value(); }

bool looks_like_number(std::string_view text) {
  return !text.empty() && (is_digit(text[0]) || text[0] == '-' || text[0] == '+' || text[0] == '.');
}

}  // namespace rb
