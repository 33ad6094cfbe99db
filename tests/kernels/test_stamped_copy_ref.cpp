// The stamped copy's twin and the placing of execution windows on the event clock: the arithmetic
// that turns the copy kernels' %globaltimer stamps into the comm intervals of a GPU timeline.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "common/error.hpp"
#include "kernels/exec_stamp.hpp"
#include "kernels/stamped_copy_ref.hpp"

namespace rb::kernels {
namespace {

TEST(StampedCopyRef, CopiesTheBytesAndStampsAnOrderedWindow) {
  std::vector<unsigned char> src(1000), dst(1000, 0);
  std::iota(src.begin(), src.end(), static_cast<unsigned char>(0));
  ExecStamp s;
  EXPECT_FALSE(stamp_valid(s));
  ref::stamped_copy({dst.data(), src.data(), 1000, &s});
  EXPECT_EQ(dst, src);
  ASSERT_TRUE(stamp_valid(s));
  EXPECT_LE(stamp_begin(s), s.end);
  // A second copy folds in: the window is the hull of both.
  const ExecStamp first = s;
  ref::stamped_copy({dst.data(), src.data(), 10, &s});
  EXPECT_EQ(stamp_begin(s), stamp_begin(first));
  EXPECT_GE(s.end, first.end);
  EXPECT_THROW(ref::stamped_copy({nullptr, src.data(), 4, &s}), Error);
  EXPECT_THROW(ref::stamped_copy({dst.data(), src.data(), 4, nullptr}), Error);
}

// The 2-D form: a member's heads of every row packed into a message (source pitch a whole row,
// destination pitch the slice) and back; the bytes between rows untouched; the refusals.
TEST(StampedCopyRef, Copies2dRowsThroughTheirPitchesAndStamps) {
  const std::int64_t rows = 5, row_bytes = 24, slice = 8, at = 16;
  std::vector<unsigned char> tensor(static_cast<std::size_t>(rows * row_bytes));
  std::iota(tensor.begin(), tensor.end(), static_cast<unsigned char>(1));
  std::vector<unsigned char> message(static_cast<std::size_t>(rows * slice), 0);
  ExecStamp s;
  ref::stamped_copy_2d({message.data(), slice, tensor.data() + at, row_bytes, slice, rows, &s});
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t b = 0; b < slice; ++b)
      EXPECT_EQ(message[static_cast<std::size_t>(r * slice + b)],
                tensor[static_cast<std::size_t>(r * row_bytes + at + b)]);
  EXPECT_TRUE(stamp_valid(s));
  std::vector<unsigned char> back(tensor.size(), 0);
  ref::stamped_copy_2d({back.data() + at, row_bytes, message.data(), slice, slice, rows, &s});
  for (std::size_t i = 0; i < back.size(); ++i)
    EXPECT_EQ(back[i], static_cast<std::int64_t>(i) % row_bytes >= at ? tensor[i] : 0) << i;
  EXPECT_THROW(ref::stamped_copy_2d({back.data(), 4, message.data(), slice, slice, rows, &s}), Error);  // pitch < width
  EXPECT_THROW(ref::stamped_copy_2d({back.data(), slice, message.data(), slice, slice, -1, &s}), Error);
  EXPECT_THROW(ref::stamped_copy_2d({back.data(), slice, message.data(), slice, slice, rows, nullptr}), Error);
  ExecStamp only;
  ref::stamped_copy_2d({nullptr, 0, nullptr, 0, 0, 0, &only});  // nothing to move still stamps
  EXPECT_TRUE(stamp_valid(only));
}

// What two atomicMax calls per CTA leave behind, whatever the order the CTAs ran in.
TEST(ExecStamp, FoldingKeepsTheEarliestStartAndTheLatestEnd) {
  ExecStamp s;
  fold_stamp(s, 500, 700);
  fold_stamp(s, 300, 400);
  fold_stamp(s, 600, 900);
  EXPECT_EQ(stamp_begin(s), 300u);
  EXPECT_EQ(s.end, 900u);
  EXPECT_TRUE(stamp_valid(s));
  ExecStamp zero;  // what the memset before a pass leaves: a copy that never ran
  EXPECT_FALSE(stamp_valid(zero));
}

// The end event of a transfer completes as its last copy ends: that end sits on the event, and each
// copy keeps its distance from it on the GPU's timer.
TEST(ExecStamp, WindowsArePinnedToTheEndEventAndKeepTheirGaps) {
  std::vector<ExecStamp> copies(2);
  fold_stamp(copies[0], 1'000'000, 1'000'300);  // K: 300 ns
  fold_stamp(copies[1], 1'000'500, 1'000'900);  // V: 400 ns, 200 ns later
  // In flight from 1000 to 5000 ns on the event clock: the stream reached the copies long before
  // they ran (waiting for SMs behind an attention kernel).
  const auto w = place_exec_windows(copies, 1000, 5000);
  ASSERT_TRUE(w);
  ASSERT_EQ(w->size(), 2u);
  EXPECT_EQ((*w)[1].end_ns, 5000);
  EXPECT_EQ((*w)[1].begin_ns, 4600);
  EXPECT_EQ((*w)[0].end_ns, 4400);
  EXPECT_EQ((*w)[0].begin_ns, 4100);
}

TEST(ExecStamp, WindowsStayInsideTheSpanAndMissingStampsAreRefused) {
  std::vector<ExecStamp> one(1);
  fold_stamp(one[0], 0x1000, 0x1000 + 8000);  // ran 8 us, but the events saw only 5 us
  const auto w = place_exec_windows(one, 100, 5100);
  ASSERT_TRUE(w);
  EXPECT_EQ((*w)[0].begin_ns, 100);  // clipped: execution never starts before its stream got there
  EXPECT_EQ((*w)[0].end_ns, 5100);
  std::vector<ExecStamp> missing(2);
  fold_stamp(missing[0], 10, 20);
  EXPECT_FALSE(place_exec_windows(missing, 0, 100));
  EXPECT_FALSE(place_exec_windows({}, 0, 100));
}

// A copy that ran inside one tick of %globaltimer stamps begin == end. It still ran: its window is
// one tick long, ending where its end stamp is placed, so the rank keeps an execution window.
TEST(ExecStamp, ACopyInsideOneTimerTickGetsAOneTickWindow) {
  std::vector<ExecStamp> copies(2);
  fold_stamp(copies[0], 7'000, 7'000);  // K: inside one tick
  fold_stamp(copies[1], 9'000, 9'000);  // V: the same, two ticks later
  const auto w = place_exec_windows(copies, 1000, 20'000);
  ASSERT_TRUE(w);
  EXPECT_EQ((*w)[1].end_ns, 20'000);
  EXPECT_EQ((*w)[1].begin_ns, 20'000 - kGlobalTimerTickNs);
  EXPECT_EQ((*w)[0].end_ns, 18'000);
  EXPECT_EQ((*w)[0].begin_ns, 18'000 - kGlobalTimerTickNs);
  // A window longer than a tick keeps its stamps; one near the span's start stays inside the span.
  std::vector<ExecStamp> early(2);
  fold_stamp(early[0], 100, 100);
  fold_stamp(early[1], 2'100, 5'100);
  const auto e = place_exec_windows(early, 0, 5'000);
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)[1].begin_ns, 2'000);
  EXPECT_EQ((*e)[0].end_ns, 0);
  EXPECT_EQ((*e)[0].begin_ns, 0);
}

}  // namespace
}  // namespace rb::kernels
