// The doc-zigzag split scheme; see split_doc_zigzag.cpp for its segments and divisibility rule.
#pragma once

#include <vector>

#include "ring/plan/split_scheme.hpp"

namespace rb::ring {

class SplitDocZigzag final : public SplitScheme {
 public:
  // The tokens each document occupies (its length, or padded: common/documents.hpp); none: the
  // whole sequence is one document, and the split is zigzag's.
  explicit SplitDocZigzag(std::vector<std::int64_t> extents) : extents_(std::move(extents)) {}
  Split kind() const override;
  std::int64_t divisor(int c) const override;
  SegmentList segments(std::int64_t S, int c, int r) const override;
  void check_documents(int c) const override;

 private:
  std::vector<std::int64_t> extents_;
};

}  // namespace rb::ring
