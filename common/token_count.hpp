// Token counts as a person writes them (issue 32), wherever a sequence length is given: a whole
// number, or a number with a binary suffix as the report writes one (reports' format_tokens: 131072
// is "128k"): k (x 1024), M (x 1024^2), G (x 1024^3), either case, so 4k = 4096, 128k = 131072,
// 1M = 1048576 and 1.5k = 1536. The number before the suffix is read by the strict reader
// (common/strict_number.hpp): no hex, no '+', no space. And ranges of them, which expand to the
// list they stand for:
//   B:E:xF   geometric: B, B*F, B*F^2, ... while at most E (F a whole number, at least 2)
//   B:E:+D   arithmetic: B, B+D, B+2D, ... while at most E (D a token count: +1k)
// nccl-tests' -b B -e E -f F is B:E:xF.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

// The most values one range may expand to: a longer one is a typo (+1 for +1k), and each value
// multiplies the sweep.
inline constexpr std::size_t kMaxRangeValues = 4096;

// The rule a token count or a range breaks, as an error names it.
std::string token_count_rule(std::int64_t hi);

// Whether `text` is written as a range (it holds a ':').
bool is_token_range(std::string_view text);

// `text` as a token count in [1, hi]; throws InputError(where, text, rule) otherwise.
std::int64_t parse_token_count(std::string_view text, std::string_view where, std::int64_t hi);

// The values of a range B:E:xF or B:E:+D, or the one value of a plain count, each in [1, hi];
// throws InputError(where, text, rule) for a malformed range, an end before the begin, a factor
// under 2, a step under 1 or more than kMaxRangeValues values.
std::vector<std::int64_t> parse_token_values(std::string_view text, std::string_view where, std::int64_t hi);

// The values from `begin` to at most `end`: times `step` when `geometric`, else plus `step`. The
// checks of parse_token_values, naming `where` and `text` (what the user wrote) in the error.
std::vector<std::int64_t> token_range(std::int64_t begin, std::int64_t end, std::int64_t step, bool geometric,
                                      std::string_view where, std::string_view text);

}  // namespace rb
