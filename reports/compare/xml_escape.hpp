// Escaping text for XML and HTML (JUnit XML, the compare diff, the trend page). Config labels and
// failure reasons are free text that can hold '<' or '&' (a rule such as "S % (2c) == 0 && ..."),
// and a JUnit file that does not parse fails the CI job instead of reporting it.
#pragma once

#include <string>
#include <string_view>

namespace rb::reports {

inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters even when escaped; a stray one becomes '?'.
        if (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r')
          out += '?';
        else
          out += ch;
    }
  }
  return out;
}

}  // namespace rb::reports
