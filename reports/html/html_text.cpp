// Escaping and number formatting for the HTML pages and the JUnit file.
#include "reports/html/html_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace rb::reports {

namespace {

// The five characters markup gives meaning to, spelt once for every page and file. Only the
// apostrophe differs: HTML 4 has no &apos;, while XML readers expect its own entity.
bool append_entity(std::string& out, char ch, const char* apostrophe) {
  switch (ch) {
    case '&': out += "&amp;"; return true;
    case '<': out += "&lt;"; return true;
    case '>': out += "&gt;"; return true;
    case '"': out += "&quot;"; return true;
    case '\'': out += apostrophe; return true;
    default: return false;
  }
}

bool continuation(std::string_view s, std::size_t i, unsigned char lo = 0x80, unsigned char hi = 0xbf) {
  if (i >= s.size()) return false;
  const auto c = static_cast<unsigned char>(s[i]);
  return c >= lo && c <= hi;
}

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0 where s[i] starts none.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return continuation(s, i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return continuation(s, i + 1, lo, hi) && continuation(s, i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return continuation(s, i + 1, lo, hi) && continuation(s, i + 2) && continuation(s, i + 3) ? 4 : 0;
  }
  return 0;
}

constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (const char ch : s)
    if (!append_entity(out, ch, "&#39;")) out += ch;
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (std::size_t i = 0; i < s.size();) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
      out += '?';
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    const std::string_view seq = s.substr(i, n);
    if (seq == "\xef\xbf\xbe" || seq == "\xef\xbf\xbf")  // U+FFFE, U+FFFF: not characters in XML 1.0
      out += kReplacement;
    else if (n > 1 || !append_entity(out, ch, "&apos;"))
      out += seq;
    i += n;
  }
  return out;
}

std::string script_json_escape(std::string_view json_text) {
  // JSON strings may hold "\u003c" for '<'; outside strings '<' never appears in JSON, so replacing
  // every '<' keeps the JSON equivalent and makes "</script" and "<!--" impossible.
  std::string out;
  out.reserve(json_text.size());
  for (const char ch : json_text) {
    if (ch == '<')
      out += "\\u003c";
    else
      out += ch;
  }
  return out;
}

std::string format_number(double v, int significant) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e7) {
    // Fixed notation with `significant` digits, but never fewer digits than the integer part has.
    const int int_digits = static_cast<int>(std::floor(std::log10(a))) + 1;
    const int decimals = std::max(0, significant - int_digits);
    std::string s = fmt::format("{:.{}f}", v, decimals);
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  }
  std::string s = fmt::format("{:.{}e}", v, std::max(0, significant - 1));
  // 1.23e-04 -> 1.23e-4
  const auto e = s.find('e');
  if (e != std::string::npos) {
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    const bool neg = !exp.empty() && exp[0] == '-';
    if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) exp.erase(0, 1);
    while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
    if (mant.find('.') != std::string::npos) {
      while (mant.back() == '0') mant.pop_back();
      if (mant.back() == '.') mant.pop_back();
    }
    s = mant + "e" + (neg ? "-" : "") + exp;
  }
  return s;
}

std::string format_tokens(double v) {
  if (v > 0 && std::floor(v) == v) {
    const auto n = static_cast<long long>(v);
    if (n % (1024LL * 1024) == 0) return fmt::format("{}M", n / (1024LL * 1024));
    if (n % 1024 == 0) return fmt::format("{}k", n / 1024);
    return fmt::format("{}", n);
  }
  return format_number(v);
}

std::string format_percent(double fraction, int decimals) { return fmt::format("{:.{}f}%", 100 * fraction, decimals); }

std::string format_optional(const std::optional<double>& v, int significant) {
  return v ? format_number(*v, significant) : std::string("\u2014");
}

}  // namespace rb::reports
