// The document mask (common/document_mask.hpp, docs/design.md §3c): the pieces of two segments cover
// exactly their within-document unmasked (query, key) pairs, each once, against a count of every
// position pair; each piece's sub-segments lie in its document at the offsets it names; without
// documents the rule is §3's, pair for pair.
#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <vector>

#include "common/document_mask.hpp"
#include "common/error.hpp"

namespace rb {
namespace {

// The document of each position of [0, S), -1 for padding.
std::vector<int> doc_of(const DocumentMask& m, std::int64_t S) {
  std::vector<int> out(static_cast<std::size_t>(S), m.active() ? -1 : 0);
  for (int d = 0; d < m.count(); ++d)
    for (std::int64_t p = m.begin(d); p < m.end(d); ++p) out[static_cast<std::size_t>(p)] = d;
  return out;
}

// Every (query position, key position) of qs x ks that the rule lets attend.
std::set<std::pair<std::int64_t, std::int64_t>> allowed(const DocumentMask& m, std::int64_t S, const SegmentList& qs,
                                                        const SegmentList& ks, bool causal) {
  const auto doc = doc_of(m, S);
  std::set<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& q : qs)
    for (std::int64_t i = 0; i < q.count; ++i)
      for (const auto& k : ks)
        for (std::int64_t t = 0; t < k.count; ++t) {
          const std::int64_t qp = q.pos(i), kp = k.pos(t);
          const int dq = doc[static_cast<std::size_t>(qp)], dk = doc[static_cast<std::size_t>(kp)];
          if (dq >= 0 && dq == dk && (!causal || kp <= qp)) out.emplace(qp, kp);
        }
  return out;
}

// The pairs the pieces cover, each checked to lie in its document and at its offsets; a pair covered
// twice fails.
std::set<std::pair<std::int64_t, std::int64_t>> covered(const DocumentMask& m, std::int64_t S, const SegmentList& qs,
                                                        const SegmentList& ks, bool causal) {
  const auto doc = doc_of(m, S);
  std::set<std::pair<std::int64_t, std::int64_t>> out;
  std::int64_t counted = 0;
  for (const MaskedPair& p : m.pairs(qs, ks, causal)) {
    EXPECT_GE(p.doc, 0);
    const SegmentRun q = m.clip(qs[p.q_seg], p.doc), k = m.clip(ks[p.k_seg], p.doc);
    EXPECT_GT(q.seg.count, 0);
    EXPECT_GT(k.seg.count, 0);
    EXPECT_NE(p.mask, MaskClass::skip) << "a piece with no unmasked pair is listed";
    EXPECT_EQ(p.mask, classify(q.seg, k.seg, causal));
    EXPECT_EQ(p.unmasked, unmasked_pairs(q.seg, k.seg, causal));
    counted += p.unmasked;
    for (std::int64_t i = 0; i < q.seg.count; ++i) {
      EXPECT_EQ(q.seg.pos(i), qs[p.q_seg].pos(q.offset + i)) << "the offset names the piece's rows";
      EXPECT_EQ(doc[static_cast<std::size_t>(q.seg.pos(i))], p.doc);
    }
    for (std::int64_t t = 0; t < k.seg.count; ++t) {
      EXPECT_EQ(k.seg.pos(t), ks[p.k_seg].pos(k.offset + t));
      EXPECT_EQ(doc[static_cast<std::size_t>(k.seg.pos(t))], p.doc);
    }
    for (std::int64_t i = 0; i < q.seg.count; ++i)
      for (std::int64_t t = 0; t < k.seg.count; ++t)
        if (!causal || k.seg.pos(t) <= q.seg.pos(i)) {
          EXPECT_TRUE(out.emplace(q.seg.pos(i), k.seg.pos(t)).second) << "a pair in two pieces";
        }
  }
  EXPECT_EQ(counted, static_cast<std::int64_t>(out.size()));
  EXPECT_EQ(m.unmasked(qs, ks, causal), counted);
  return out;
}

// Documents of S = 60 with padding gaps (positions 10-11, 40-43), short ones and long ones.
DocumentMask padded_mask() { return DocumentMask({0, 3, 4, 12, 13, 30, 44}, {3, 4, 10, 13, 30, 40, 60}); }

TEST(DocumentMask, PiecesCoverExactlyTheWithinDocumentPairsOfStridedSegments) {
  const std::int64_t S = 60;
  const std::vector<DocumentMask> masks{padded_mask(), DocumentMask({0}, {60}),
                                        DocumentMask({0, 1, 2, 3, 4, 5}, {1, 2, 3, 4, 5, 60})};
  const std::vector<SegmentList> lists{{Segment{0, 1, 60}},
                                       {Segment{2, 5, 12}},                      // a stride longer than some documents
                                       {Segment{1, 3, 10}, Segment{35, 1, 20}},  // two segments, one strided
                                       {Segment{7, 1, 8}, Segment{45, 1, 8}},    // zig-zag-like halves
                                       {Segment{11, 1, 1}, Segment{40, 2, 2}},   // padding only
                                       {Segment{0, 4, 15}, Segment{59, 1, 1}, {}}};  // an empty segment
  for (std::size_t mi = 0; mi < masks.size(); ++mi)
    for (const bool causal : {true, false})
      for (std::size_t a = 0; a < lists.size(); ++a)
        for (std::size_t b = 0; b < lists.size(); ++b) {
          SCOPED_TRACE(::testing::Message()
                       << "mask " << mi << " queries " << a << " keys " << b << " causal " << causal);
          EXPECT_EQ(covered(masks[mi], S, lists[a], lists[b], causal),
                    allowed(masks[mi], S, lists[a], lists[b], causal));
        }
}

TEST(DocumentMask, PaddingAttendsToNothingAndNothingAttendsToIt) {
  const DocumentMask m = padded_mask();
  for (const std::int64_t p : {10, 11, 40, 41, 42, 43}) EXPECT_FALSE(m.holds(p)) << p;
  for (const std::int64_t p : {0, 9, 12, 39, 44, 59}) EXPECT_TRUE(m.holds(p)) << p;
  const SegmentList pad{Segment{10, 1, 2}, Segment{40, 1, 4}};
  const SegmentList all{Segment{0, 1, 60}};
  EXPECT_TRUE(m.pairs(pad, all, false).empty());
  EXPECT_TRUE(m.pairs(all, pad, false).empty());
  EXPECT_TRUE(DocumentMask().holds(11));
}

// Without documents the rule is §3's: every pair, skip ones too, in the order plans always had.
TEST(DocumentMask, WithoutDocumentsEveryPairAsSection3GivesIt) {
  const SegmentList qs{Segment{0, 1, 4}, Segment{12, 1, 4}}, ks{Segment{4, 1, 4}, Segment{8, 1, 4}};
  const auto pairs = DocumentMask().pairs(qs, ks, true);
  ASSERT_EQ(pairs.size(), 4u);
  int i = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b, ++i) {
      EXPECT_EQ(pairs[i].q_seg, a);
      EXPECT_EQ(pairs[i].k_seg, b);
      EXPECT_EQ(pairs[i].doc, -1);
      EXPECT_EQ(pairs[i].mask, classify(qs[a], ks[b], true));
      EXPECT_EQ(pairs[i].unmasked, unmasked_pairs(qs[a], ks[b], true));
    }
  EXPECT_EQ(pairs[0].mask, MaskClass::skip);  // kept, as plans list them
}

// A doc-zigzag rank holds two chunks of each document: its pieces against a peer's chunks are the
// ones within each document, never a chunk of one document against another's.
TEST(DocumentMask, ChunksOfDifferentDocumentsFormNoPiece) {
  std::vector<std::int64_t> begins, ends;
  SegmentList mine, peer;
  for (int d = 0; d < 50; ++d) {
    begins.push_back(8 * d);
    ends.push_back(8 * d + 8);
    mine.push_back(Segment{8 * d, 1, 2});  // chunks 0 and 3 of 4
    mine.push_back(Segment{8 * d + 6, 1, 2});
    peer.push_back(Segment{8 * d + 2, 1, 2});  // chunks 1 and 2
    peer.push_back(Segment{8 * d + 4, 1, 2});
  }
  const DocumentMask m(begins, ends);
  const auto pairs = m.pairs(mine, peer, true);
  // Chunk 3 sees chunks 1 and 2 of its own document; chunk 0 sees neither.
  ASSERT_EQ(pairs.size(), 100u);
  for (const auto& p : pairs) {
    EXPECT_EQ(p.q_seg / 2, p.doc);
    EXPECT_EQ(p.k_seg / 2, p.doc);
    EXPECT_EQ(p.q_seg % 2, 1);
    EXPECT_EQ(p.mask, MaskClass::full);
  }
}

TEST(DocumentMask, RefusesDocumentsOutOfOrder) {
  EXPECT_THROW(DocumentMask({0, 4}, {5, 8}), Error);  // overlapping
  EXPECT_THROW(DocumentMask({0}, {0}), Error);        // empty
  EXPECT_THROW(DocumentMask({0, 1}, {1}), Error);     // unequal lists
}

}  // namespace
}  // namespace rb
