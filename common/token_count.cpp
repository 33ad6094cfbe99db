// Token counts with binary suffixes, and ranges of them (common/token_count.hpp).
#include "common/token_count.hpp"

#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/strict_number.hpp"

namespace rb {
namespace {

// The multiple a suffix stands for, or 0 for a character that is none.
std::int64_t suffix_scale(char c) {
  switch (c) {
    case 'k':
    case 'K': return std::int64_t{1} << 10;
    case 'm':
    case 'M': return std::int64_t{1} << 20;
    case 'g':
    case 'G': return std::int64_t{1} << 30;
    default: return 0;
  }
}

[[noreturn]] void refuse(std::string_view where, std::string_view text, const std::string& rule) {
  throw InputError(std::string(where), std::string(text), rule);
}

// The count `text` is, or nullopt where it is none (any reason: the caller names the rule).
std::optional<std::int64_t> read_count(std::string_view text, std::int64_t hi) {
  std::int64_t scale = 1;
  if (!text.empty() && suffix_scale(text.back()) != 0) {
    scale = suffix_scale(text.back());
    text.remove_suffix(1);
  }
  if (!written_as_number(text)) return std::nullopt;
  WrittenNumber n;
  try {
    n = read_number(text, "");
  } catch (const InputError&) {
    return std::nullopt;  // beyond a double, or a subnormal
  }
  if (n.integer) {
    if (*n.integer < 1 || *n.integer > hi / scale) return std::nullopt;
    return *n.integer * scale;
  }
  // 1.5k: the fraction times a power of two is exact while the product is within 2^53.
  const double v = n.value * static_cast<double>(scale);
  if (!(v >= 1 && v <= static_cast<double>(hi) && v <= 9007199254740992.0 && std::trunc(v) == v)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::string token_count_rule(std::int64_t hi) {
  return fmt::format(
      "must be a positive whole number of tokens, at most {}: 4096, 4k, 1.5M (k, M, G: x 1024, 1024^2, 1024^3), or "
      "a range 1k:128k:x2, 1k:8k:+1k",
      hi);
}

bool is_token_range(std::string_view text) { return text.find(':') != std::string_view::npos; }

std::int64_t parse_token_count(std::string_view text, std::string_view where, std::int64_t hi) {
  const auto n = read_count(text, hi);
  if (!n) refuse(where, text, token_count_rule(hi));
  return *n;
}

std::vector<std::int64_t> token_range(std::int64_t begin, std::int64_t end, std::int64_t step, bool geometric,
                                      std::string_view where, std::string_view text) {
  if (end < begin) refuse(where, text, fmt::format("the range ends ({}) before it begins ({})", end, begin));
  if (geometric && step < 2)
    refuse(where, text, fmt::format("the factor of a range must be a whole number, at least 2 (x2), not {}", step));
  if (!geometric && step < 1) refuse(where, text, "the step of a range must be at least 1 (+1024, +1k)");
  // Counted before any value is made: an arithmetic range of a billion values is refused, not built.
  std::uint64_t count = 0;
  if (geometric) {
    for (std::int64_t v = begin;; v *= step) {
      ++count;
      if (v > end / step) break;
    }
  } else {
    count = static_cast<std::uint64_t>((end - begin) / step) + 1;
  }
  if (count > kMaxRangeValues)
    refuse(where, text,
           fmt::format("the range gives {} values; at most {} (a larger step, or a geometric range: x2)", count,
                       kMaxRangeValues));
  std::vector<std::int64_t> out;
  out.reserve(count);
  std::int64_t v = begin;
  for (std::uint64_t i = 0; i < count; ++i) {
    out.push_back(v);
    if (i + 1 < count) v = geometric ? v * step : v + step;  // never past the end: no overflow
  }
  return out;
}

std::vector<std::int64_t> parse_token_values(std::string_view text, std::string_view where, std::int64_t hi) {
  if (!is_token_range(text)) return {parse_token_count(text, where, hi)};
  const std::string rule = token_count_rule(hi);
  const std::size_t first = text.find(':');
  const std::size_t second = text.find(':', first + 1);
  if (second == std::string_view::npos || text.find(':', second + 1) != std::string_view::npos)
    refuse(where, text, "a range is BEGIN:END:xFACTOR or BEGIN:END:+STEP (1k:128k:x2, 1024:4096:+1024)");
  const auto begin = read_count(text.substr(0, first), hi);
  const auto end = read_count(text.substr(first + 1, second - first - 1), hi);
  if (!begin || !end) refuse(where, text, rule);
  const std::string_view step = text.substr(second + 1);
  if (step.empty() || (step[0] != 'x' && step[0] != '+'))
    refuse(where, text,
           "a range's third part is xFACTOR (geometric: x2) or +STEP (arithmetic: +1024, +1k): "
           "1k:128k:x2, 1024:4096:+1024");
  const bool geometric = step[0] == 'x';
  const std::string_view number = step.substr(1);
  std::optional<std::int64_t> by;
  if (geometric) {
    try {
      const WrittenNumber n = read_number(number, where);
      if (n.integer) by = *n.integer;  // a whole factor: x1.5 is refused below
    } catch (const InputError&) {
    }
  } else {
    by = read_count(number, hi);
  }
  if (!by)
    refuse(where, text,
           geometric ? "the factor of a range must be a whole number, at least 2 (x2)"
                     : "the step of a range must be a token count, at least 1 (+1024, +1k)");
  return token_range(*begin, *end, *by, geometric, where, text);
}

}  // namespace rb
