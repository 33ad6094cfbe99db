// doc-zigzag (TransformerEngine's THD DualChunkSwap, Megatron's per-document balancing): every
// document is cut into 2c chunks and rank r holds chunks r and 2c-1-r of each, so each rank's causal
// work within every document is equal, whatever the length mix. Rank r's rows are its two chunks of
// the first document, then of the second, and so on. Every document must be a multiple of 2c long;
// --pad-documents pads each one at its end (common/documents.hpp), and the padding is in no document.
#include "ring/plan/split_doc_zigzag.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::ring {

Split SplitDocZigzag::kind() const { return Split::doc_zigzag; }
std::int64_t SplitDocZigzag::divisor(int c) const { return 2 * static_cast<std::int64_t>(c); }

SegmentList SplitDocZigzag::segments(std::int64_t S, int c, int r) const {
  const std::int64_t chunks = 2 * static_cast<std::int64_t>(c), late = chunks - 1 - r;
  if (extents_.empty()) {
    const std::int64_t n = S / chunks;
    return {Segment{r * n, 1, n}, Segment{late * n, 1, n}};
  }
  SegmentList out;
  out.reserve(2 * extents_.size());
  std::int64_t at = 0;
  for (const std::int64_t len : extents_) {
    const std::int64_t n = len / chunks;
    out.push_back(Segment{at + r * n, 1, n});
    out.push_back(Segment{at + late * n, 1, n});
    at += len;
  }
  return out;
}

void SplitDocZigzag::check_documents(int c) const {
  const std::int64_t m = divisor(c);
  for (std::size_t i = 0; i < extents_.size(); ++i) {
    const std::int64_t len = extents_[i];
    if (len % m == 0) continue;
    const std::int64_t below = len / m * m, above = below + m;
    const std::int64_t nearest = (below > 0 && len - below <= above - len) ? below : above;
    throw InputError("documents", fmt::format("{} (document {} of {})", len, i + 1, extents_.size()),
                     fmt::format("the doc-zigzag split cuts every document into 2c = {} chunks, so each length must "
                                 "be a multiple of {}; nearest valid length is {}, or --pad-documents pads each one",
                                 m, m, nearest));
  }
}

}  // namespace rb::ring
