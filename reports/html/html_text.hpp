// Text helpers for the HTML pages (report, compare, trend) and the JUnit file: escaping (every string
// that comes from a results file passes through html_escape or xml_escape, so a config string or a
// reason cannot inject markup or script) and the number formats used in tables, ticks and tooltips.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rb::reports {

// Escapes & < > " ' so the result is safe both as element text and inside a quoted attribute.
std::string html_escape(std::string_view s);

// html_escape for an XML 1.0 file (JUnit), which a CI job must be able to parse whatever a label
// holds: a control character XML forbids even escaped (all below 0x20 but tab, LF and CR) becomes
// '?', a byte that is not UTF-8 becomes U+FFFD (the rule of every JSON file, docs/formats.md), as
// do U+FFFE and U+FFFF; ' is written &apos;, XML's own entity.
std::string xml_escape(std::string_view s);

// Text safe inside <script type="application/json">: escapes '<' so "</script>" cannot close it.
std::string script_json_escape(std::string_view json_text);

// Significant-digit formatting without exponent noise for the ranges the report shows:
// 0.000123 -> "1.23e-4", 12.3456 -> "12.3", 123456 -> "123456".
std::string format_number(double v, int significant = 3);

// Token counts the way long-context papers write them: 4096 -> "4k", 131072 -> "128k",
// 1048576 -> "1M"; anything not a multiple of 1024 is printed in full.
std::string format_tokens(double v);

// "12.3%" from a fraction 0.123.
std::string format_percent(double fraction, int decimals = 1);

// "—" for a value that was not measured.
std::string format_optional(const std::optional<double>& v, int significant = 3);

}  // namespace rb::reports
