// Writing to the terminal (stderr, stdout) without ever failing a command: a closed pipe
// (`| head -1`), a full device (`2>/dev/full`) or a file-size limit makes the write fail, and what
// was measured and written to files must not be lost for a line of text no one can read.
#pragma once

#include <cstdio>
#include <string_view>

namespace rb {

// Writes `text` to `f` and flushes; a failed write is dropped (and the stream's error cleared).
inline void print_quietly(std::FILE* f, std::string_view text) noexcept {
  if (f == nullptr) return;
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0) std::clearerr(f);
}

}  // namespace rb
