// Escaping and number formatting for the HTML report.
#include "reports/html/html_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace rb::reports {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (const char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
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
