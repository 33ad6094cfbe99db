// Writing to the terminal (stderr, stdout) without ever failing a command: a closed pipe
// (`| head -1`), a full device (`2>/dev/full`) or a file-size limit makes the write fail, and what
// was measured and written to files must not be lost for a line of text no one can read.
//
// Everything printed passes through terminal_safe here, once, at the sink: text read from input files
// (a config's split, a kernel name in a trace, a file name) may hold escape sequences that retitle
// the window or rewrite what was printed before, and a call site cannot be trusted to remember.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace rb {

// `text` with every control character but the line end written out (the line end too when
// `one_line`): a C0 control or DEL as \xHH, a C1 control (U+0080..U+009F, which some terminals obey
// as ESC sequences) as \uHHHH, and each byte that is not part of valid UTF-8 as \xHH. Everything
// else is kept as is, so JSON (whose strings hold no raw C0 control) stays the same JSON: \u0085 is
// what a JSON string says for U+0085.
inline std::string terminal_safe(std::string_view text, bool one_line = false) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto byte_escape = [&](unsigned char b) {
    out += "\\x";
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  };
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = s[i];
    if (b < 0x80) {
      if ((b < 0x20 && (b != '\n' || one_line)) || b == 0x7f)
        byte_escape(b);
      else
        out += static_cast<char>(b);
      ++i;
      continue;
    }
    // The length and the smallest code point of a sequence by its lead byte; overlong forms,
    // surrogates and code points past U+10FFFF are not UTF-8.
    const std::size_t len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    std::uint32_t cp = len == 2 ? b & 0x1f : len == 3 ? b & 0x0f : b & 0x07;
    bool ok = len != 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (s[i + k] & 0xc0) == 0x80;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    ok = ok && !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) &&
         !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
    if (!ok) {
      byte_escape(b);
      ++i;
    } else if (cp <= 0x9f) {  // two bytes under U+00A0: a C1 control
      out += "\\u00";
      out += kHex[cp >> 4];
      out += kHex[cp & 0xf];
      i += len;
    } else {
      out.append(text.data() + i, len);
      i += len;
    }
  }
  return out;
}

// Where a line starts: after what was printed before, or over it (a live progress line that the
// next one replaces). The return and clear-line sequence is the one control the sink writes itself.
enum class LineStart { keep, clear };

// Writes `text`, made terminal_safe, to `f` and flushes; a failed write is dropped (and the
// stream's error cleared).
inline void print_quietly(std::FILE* f, std::string_view text, LineStart start = LineStart::keep) noexcept {
  if (f == nullptr) return;
  try {
    const std::string safe = (start == LineStart::clear ? "\r\033[K" : "") + terminal_safe(text);
    if (std::fwrite(safe.data(), 1, safe.size(), f) != safe.size() || std::fflush(f) != 0) std::clearerr(f);
  } catch (...) {  // out of memory for a line of text: drop it, as a full disk drops it
  }
}

}  // namespace rb
