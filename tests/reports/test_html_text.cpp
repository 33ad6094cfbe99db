// The one escaper: html_escape for every HTML page, xml_escape (the same five entities) for the
// JUnit file, which must parse in a CI job whatever bytes a label, a reason or a path carries.
#include <string>

#include <gtest/gtest.h>

#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

using namespace std::string_literals;

const std::string kFffd = "\xef\xbf\xbd";

struct EscapeCase {
  std::string what, in, html, xml;
};

TEST(HtmlText, HtmlAndXmlEscapeShareTheEntitiesAndXmlDropsWhatXmlForbids) {
  const EscapeCase cases[] = {
      {"plain text", "S=1024 c=4", "S=1024 c=4", "S=1024 c=4"},
      {"the five characters", "<a href=\"x\">'&'</a>", "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
       "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;"},
      {"a rule from a reason", "S % (2c) == 0 && c > 1", "S % (2c) == 0 &amp;&amp; c &gt; 1",
       "S % (2c) == 0 &amp;&amp; c &gt; 1"},
      {"tab, LF and CR are XML characters", "a\tb\nc\rd", "a\tb\nc\rd", "a\tb\nc\rd"},
      {"C0 controls are not", "bell\x07 esc\x1b[2J", "bell\x07 esc\x1b[2J", "bell? esc?[2J"},
      {"nor is NUL", "nul\0byte"s, "nul\0byte"s, "nul?byte"},
      {"DEL is allowed in XML 1.0", "del\x7f", "del\x7f", "del\x7f"},
      {"two-byte UTF-8", "caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9"},
      {"three-byte UTF-8", "\xe2\x86\x93 better", "\xe2\x86\x93 better", "\xe2\x86\x93 better"},
      {"four-byte UTF-8", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},
      {"U+FFFD itself stays", kFffd, kFffd, kFffd},
      {"a byte that is not UTF-8 (a path)", "bad\xff/r.json", "bad\xff/r.json", "bad" + kFffd + "/r.json"},
      {"a lone continuation byte", "a\x80z", "a\x80z", "a" + kFffd + "z"},
      {"an overlong '/'", "\xc0\xaf", "\xc0\xaf", kFffd + kFffd},
      {"a surrogate", "\xed\xa0\x80", "\xed\xa0\x80", kFffd + kFffd + kFffd},
      {"past U+10FFFF", "\xf4\x90\x80\x80", "\xf4\x90\x80\x80", kFffd + kFffd + kFffd + kFffd},
      {"a sequence cut short at the end", "x\xe2\x86", "x\xe2\x86", "x" + kFffd + kFffd},
      {"a cut sequence before an entity", "\xe2<", "\xe2&lt;", kFffd + "&lt;"},
      {"U+FFFE and U+FFFF are not XML characters", "\xef\xbf\xbe\xef\xbf\xbf", "\xef\xbf\xbe\xef\xbf\xbf",
       kFffd + kFffd},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(html_escape(c.in), c.html) << c.what;
    EXPECT_EQ(xml_escape(c.in), c.xml) << c.what;
  }
}

}  // namespace
}  // namespace rb::reports
