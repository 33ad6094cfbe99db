// What reaches the terminal: control characters and invalid UTF-8 written out (terminal_safe, the
// one escaping at the sink), and an error line kept short whatever the input (elide, InputError).
#include <string>

#include <gtest/gtest.h>

#include "common/console.hpp"
#include "common/error.hpp"

namespace rb {
namespace {

TEST(TerminalSafe, WritesOutControlsAndInvalidUtf8AndKeepsTheRest) {
  const struct {
    std::string in, out;
  } cases[] = {
      {"plain text\n", "plain text\n"},
      {"\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"},  // the window title sequence of issue 28
      {"a\rb\tc\x7f", "a\\x0db\\x09c\\x7f"},
      {"\xc2\x9b"
       "31m",
       "\\u009b31m"},  // C1 CSI, which some terminals obey as ESC [
      {"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"},
      {"bad\xff", "bad\\xff"},
      {"\xc3", "\\xc3"},                             // a sequence cut short
      {"\xc0\xaf", "\\xc0\\xaf"},                    // an overlong '/'
      {"\xed\xa0\x80", "\\xed\\xa0\\x80"},           // a surrogate
      {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},  // past U+10FFFF
      {std::string("nul\0byte", 8), "nul\\x00byte"},
  };
  for (const auto& c : cases) EXPECT_EQ(terminal_safe(c.in), c.out) << c.out;
}

TEST(TerminalSafe, JsonStaysTheSameJson) {
  // A JSON string escapes C0 controls itself; what is left to the sink must read back unchanged.
  const std::string json = "{\n  \"label\": \"\\u001b]0;x\\u0007 \xc2\x85\"\n}\n";
  EXPECT_EQ(terminal_safe(json), "{\n  \"label\": \"\\u001b]0;x\\u0007 \\u0085\"\n}\n");
}

TEST(Elide, KeepsBothEndsAndWholeCharacters) {
  EXPECT_EQ(elide("short", 80), "short");
  const std::string path = "/data/" + std::string(4096, 'a') + "/results.json";
  const std::string e = elide(path, 80);
  EXPECT_LE(e.size(), 80u);
  EXPECT_EQ(e.rfind("/data/", 0), 0u) << e;
  EXPECT_EQ(e.substr(e.size() - 13), "/results.json") << e;
  EXPECT_NE(e.find("bytes...]"), std::string::npos) << e;
  // Three-byte characters: neither cut may split one, so the result is valid UTF-8 (no \x escapes).
  std::string arrows;
  for (int i = 0; i < 100; ++i) arrows += "\xe2\x86\x92";
  const std::string a = elide(arrows, 41);
  EXPECT_LE(a.size(), 41u);
  EXPECT_EQ(terminal_safe(a), a);
  // Escaping comes first, so the limit holds for what is printed.
  EXPECT_LE(elide(std::string(1000, '\x1b'), 80).size(), 80u);
}

TEST(InputErrorText, OneShortLineWhateverTheInput) {
  const std::string huge(100000, 'v');
  const InputError e(huge, huge + "\n\x1b[2J", huge);
  const std::string what = e.what();
  EXPECT_LT(what.size(), 360u);
  EXPECT_EQ(what.find('\n'), std::string::npos);
  EXPECT_EQ(what.find('\x1b'), std::string::npos);
  EXPECT_NE(what.find("\\x1b[2J"), std::string::npos) << what;  // the end of a value is kept
  EXPECT_EQ(e.value().size(), 100000u + 5);                     // the accessors keep it whole
  EXPECT_EQ(std::string(InputError("--seq", "0", "must be positive").what()),
            "--seq: value 0 is invalid: must be positive");
}

}  // namespace
}  // namespace rb
