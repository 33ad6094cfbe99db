// Packed documents that reach the mask's corners (docs/design.md §3c), for the plan, executor and
// SDPA tests: for S tokens cut into chunks of m (zig-zag's S/2c), a document shorter than a chunk,
// one whose end falls inside a chunk, one that spans chunks, then growing lengths, the last cut to
// fit S.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/documents.hpp"

namespace rb::test {

inline std::vector<std::int64_t> corner_lengths(std::int64_t S, std::int64_t m) {
  std::vector<std::int64_t> out;
  std::int64_t sum = 0;
  std::vector<std::int64_t> first{1, m + 1, 2, 2 * m + 3};
  for (std::int64_t i = 0; sum < S; ++i) {
    std::int64_t l = i < static_cast<std::int64_t>(first.size()) ? first[static_cast<std::size_t>(i)] : 2 * i - 5;
    l = std::min(l, S - sum);
    out.push_back(l);
    sum += l;
  }
  return out;
}

inline std::string joined(const std::vector<std::int64_t>& lengths) {
  std::string s;
  for (const auto l : lengths) {
    if (!s.empty()) s += '+';
    s += std::to_string(l);
  }
  return s;
}

// cfg (its seq the real tokens) packed with the corner documents; doc-zigzag pads them.
inline Config with_corner_documents(Config cfg) {
  const std::int64_t m = cfg.seq / (2 * static_cast<std::int64_t>(cfg.cp));
  set_documents(cfg, parse_document_spec(joined(corner_lengths(cfg.seq, m)), "test"), true);
  return cfg;
}

}  // namespace rb::test
