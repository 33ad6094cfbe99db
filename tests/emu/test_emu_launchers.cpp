// The emulated kernel launchers (emu/kernels/): each rb::kernels:: launcher, on a non-blocking
// stream and emulated device memory, against its CPU twin called directly on the host. Attention on
// random segment lists (GQA, causal and not, D = 64 and 128, several row tiles a launch) within fp32
// rounding of the float twin over the whole step, every row written; the fill bit for bit against
// the device's __double2bfloat16; merge and fold equal to their twins; the stamped copy, clock probe
// and link pace leave the stamps their kernels leave; the backward piece's cast bit for bit against
// CUDA's own __float2bfloat16_rn, its stats packing and row adds equal to their twins. Every launch declares accesses
// the emulator accepts (no violation), and one reading past an allocation's end is refused as "bounds".
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "common/error.hpp"
#include "common/segment.hpp"
#include "emu/runtime/emu_device.hpp"
#include "kernels/attention_block.cuh"
#include "kernels/attention_block_ref.hpp"
#include "kernels/clock_probe.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/fill_inputs.cuh"
#include "kernels/fill_inputs_ref.hpp"
#include "kernels/fold_piece.cuh"
#include "kernels/fold_piece_ref.hpp"
#include "kernels/grad_piece.cuh"
#include "kernels/grad_piece_ref.hpp"
#include "kernels/link_pace.cuh"
#include "kernels/merge_partials.cuh"
#include "kernels/merge_partials_ref.hpp"
#include "kernels/stamped_copy.cuh"
#include "tests/device/random_segments.hpp"

namespace rb::kernels {
namespace {

using bf16 = __nv_bfloat16;

std::string launchers_violations_text() {
  std::string s;
  for (const emu::Violation& v : emu::violations()) s += v.text() + "\n";
  return s;
}

template <typename T>
std::vector<T> launchers_download(const DeviceBuffer<T>& b) {
  std::vector<T> h(b.size());
  RB_CUDA_CHECK(cudaMemcpy(h.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

template <typename T>
DeviceBuffer<T> launchers_upload(const std::vector<T>& h) {
  return DeviceBuffer<T>(std::span<const T>(h));
}

class EmuLaunchers : public ::testing::Test {
 protected:
  void SetUp() override {
    emu::set_schedule_seed(0);
    (void)cudaDeviceSynchronize();
    emu::clear_violations();
    (void)cudaGetLastError();
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    EXPECT_TRUE(emu::violations().empty()) << launchers_violations_text();
  }
  void sync() { RB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  cudaStream_t stream_ = nullptr;
};

// --- attention

struct LaunchersAttnCase {
  SegmentList qs, ks;
  int hq, hkv, d;
  bool causal;
};

void launchers_check_attention(const LaunchersAttnCase& c, std::mt19937_64& g, cudaStream_t stream) {
  const std::int64_t sq = total_count(c.qs), sk = total_count(c.ks);
  std::uniform_real_distribution<float> u(-1, 1);
  // bf16 values, and the floats they are (the twin's inputs).
  const auto make = [&](std::int64_t rows, int heads, std::vector<bf16>& dev, std::vector<float>& host) {
    const auto n = static_cast<std::size_t>(rows * heads * c.d);
    dev.resize(n);
    host.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      dev[i] = __float2bfloat16_rn(u(g));
      host[i] = __bfloat162float(dev[i]);
    }
  };
  std::vector<bf16> qb, kb, vb;
  std::vector<float> q, k, v;
  make(sq, c.hq, qb, q);
  make(sk, c.hkv, kb, k);
  make(sk, c.hkv, vb, v);
  std::vector<BlockPair> pairs;
  const auto qo = row_offsets(c.qs), ko = row_offsets(c.ks);
  for (std::size_t a = 0; a < c.qs.size(); ++a)
    for (std::size_t b = 0; b < c.ks.size(); ++b)
      pairs.push_back({c.qs[a], qo[a], c.ks[b], ko[b], classify(c.qs[a], c.ks[b], c.causal)});
  const float scale = 1.f / std::sqrt(static_cast<float>(c.d));

  std::vector<float> ref_o(q.size()), ref_l(static_cast<std::size_t>(sq * c.hq));
  ref::AttentionBlockParams<float> rp;
  rp.q = q.data(), rp.k = k.data(), rp.v = v.data(), rp.o = ref_o.data(), rp.lse = ref_l.data();
  rp.sq = sq, rp.sk = sk, rp.hq = c.hq, rp.hkv = c.hkv, rp.d = c.d, rp.causal = c.causal, rp.scale = scale;
  rp.pairs = pairs;
  ref::attention_block(rp);

  // O and L fresh, so poisoned (NaN): every row must be written.
  const auto dq = launchers_upload(qb), dk = launchers_upload(kb), dv = launchers_upload(vb);
  DeviceBuffer<float> dO(q.size()), dL(ref_l.size());
  const DeviceAttentionWork work(pairs, sq, sk, c.causal);
  ASSERT_GT(work.num_tiles(), 0);
  AttentionBlockParams p;
  p.q = dq.get(), p.k = dk.get(), p.v = dv.get(), p.o = dO.get(), p.lse = dL.get();
  p.sq = sq, p.sk = sk, p.hq = c.hq, p.hkv = c.hkv, p.d = c.d, p.causal = c.causal, p.scale = scale;
  work.bind(p);
  attention_block(p, stream);
  RB_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto o = launchers_download(dO), l = launchers_download(dL);

  for (std::size_t i = 0; i < o.size(); ++i)
    ASSERT_NEAR(o[i], ref_o[i], 1e-6f * (1 + std::abs(ref_o[i])))
        << "O element " << i << " (row " << i / static_cast<std::size_t>(c.hq * c.d) << ")";
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (std::isinf(ref_l[i]))
      ASSERT_TRUE(std::isinf(l[i]) && l[i] < 0) << "row " << i << " saw no key but L = " << l[i];
    else
      ASSERT_NEAR(l[i], ref_l[i], 1e-6f * (1 + std::abs(ref_l[i]))) << "L row " << i;
  }
}

TEST_F(EmuLaunchers, AttentionMatchesTwinOnRandomSegments) {
  const auto seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 g(seed);
  const int groups[][2] = {{1, 1}, {4, 2}, {8, 1}};
  for (int d : {64, 128})
    for (const auto& gr : groups)
      for (bool causal : {true, false}) {
        const LaunchersAttnCase c{test::random_segments(g, 3, 200),
                                  test::random_segments(g, 3, 200),
                                  gr[0],
                                  gr[1],
                                  d,
                                  causal};
        SCOPED_TRACE(::testing::Message() << "D " << d << " Hq " << gr[0] << " Hkv " << gr[1] << " causal " << causal);
        launchers_check_attention(c, g, stream_);
        if (HasFatalFailure()) return;
      }
}

// Many row tiles a launch: one long causal diagonal, zigzag's chunk pairs, a striped pair.
TEST_F(EmuLaunchers, AttentionMatchesTwinOnLongSegments) {
  std::mt19937_64 g(5);
  launchers_check_attention({{Segment{0, 1, 700}}, {Segment{0, 1, 700}}, 4, 1, 128, true}, g, stream_);
  launchers_check_attention(
      {{Segment{0, 1, 257}, Segment{1792, 1, 257}}, {Segment{0, 1, 257}, Segment{1792, 1, 257}}, 8, 2, 64, true}, g,
      stream_);
  launchers_check_attention({{Segment{3, 8, 400}}, {Segment{5, 8, 400}}, 2, 2, 64, true}, g, stream_);
}

// The GPU build's refusals, and a launch with no tiles enqueues nothing.
TEST_F(EmuLaunchers, AttentionRefusesAsTheDeviceLauncher) {
  AttentionBlockParams p;
  p.d = 96;
  EXPECT_THROW(attention_block(p, stream_), Error);
  p.d = 64;
  const auto before = emu::counters().ops_enqueued;
  attention_block(p, stream_);  // no tiles
  EXPECT_EQ(emu::counters().ops_enqueued, before);
  p.num_tiles = 1;  // tiles, but no buffers
  EXPECT_THROW(attention_block(p, stream_), Error);
}

// --- merge and fold

TEST_F(EmuLaunchers, MergeEqualsTwin) {
  std::mt19937_64 g(9);
  std::uniform_real_distribution<float> u(-1, 1), lse(-5, 20);
  for (int d : {4, 36, 128}) {
    const std::int64_t rows = 301;
    const int hq = 3;
    const auto n = static_cast<std::size_t>(rows * hq);
    std::vector<float> oa(n * d), ob(n * d), la(n), lb(n);
    for (auto* x : {&oa, &ob})
      for (auto& e : *x) e = u(g);
    for (std::size_t i = 0; i < n; ++i) {
      la[i] = i % 7 == 0 ? -std::numeric_limits<float>::infinity() : lse(g);
      lb[i] = i % 5 == 0 ? -std::numeric_limits<float>::infinity() : lse(g);
    }
    auto doa = launchers_upload(oa), dla = launchers_upload(la);
    const auto dob = launchers_upload(ob), dlb = launchers_upload(lb);
    merge_partials(MergeParams{doa.get(), dla.get(), dob.get(), dlb.get(), rows, hq, d}, stream_);
    sync();
    ref::merge_partials(ref::MergeParams<float>{oa.data(), la.data(), ob.data(), lb.data(), rows, hq, d});
    EXPECT_EQ(launchers_download(doa), oa) << "d " << d;
    EXPECT_EQ(launchers_download(dla), la) << "d " << d;
  }
}

TEST_F(EmuLaunchers, FoldPieceEqualsTwin) {
  std::mt19937_64 g(13);
  std::uniform_real_distribution<float> u(-1, 1), lse(-5, 20);
  for (int d : {64, 128}) {
    const std::int64_t sq = 97, row0 = 11, rows = 70;
    const int hq = 3;
    const auto n = static_cast<std::size_t>(sq * hq);
    std::vector<bf16> piece(n * d);
    std::vector<float> piece_f(n * d), acc(n * d), la(n), lb(n);
    for (std::size_t i = 0; i < piece.size(); ++i) {
      piece[i] = __float2bfloat16_rn(u(g));
      piece_f[i] = __bfloat162float(piece[i]);
    }
    for (auto& e : acc) e = u(g);
    for (std::size_t i = 0; i < n; ++i) {
      la[i] = i % 7 == 0 ? -std::numeric_limits<float>::infinity() : lse(g);
      lb[i] = i % 5 == 0 ? -std::numeric_limits<float>::infinity() : lse(g);
    }
    auto dacc = launchers_upload(acc), dla = launchers_upload(la);
    const auto dlb = launchers_upload(lb);
    const auto dpiece = launchers_upload(piece);
    for (const FoldMode mode : {FoldMode::merge, FoldMode::write, FoldMode::clear}) {
      fold_piece(FoldPieceParams{dacc.get(), dla.get(), dpiece.get(), dlb.get(), row0, rows, hq, d, mode}, stream_);
      sync();
      ref::fold_piece({acc.data(), la.data(), piece_f.data(), lb.data(), row0, rows, hq, d, mode});
      EXPECT_EQ(launchers_download(dacc), acc) << "d " << d << " mode " << static_cast<int>(mode);
      EXPECT_EQ(launchers_download(dla), la) << "d " << d << " mode " << static_cast<int>(mode);
    }
  }
}

// --- the backward piece's kernels

TEST_F(EmuLaunchers, CastBf16IsCudasRoundingBitForBit) {
  std::mt19937 g(3);
  std::uniform_int_distribution<std::uint32_t> bits;
  std::vector<float> src(4099);
  for (auto& x : src) {
    x = std::bit_cast<float>(bits(g));
    if (std::isnan(x)) x = 1.0f;  // NaN payloads are the one thing neither side promises
  }
  // Every fourth a tie (the dropped half exactly 0x8000): half of them round up, to the even bf16.
  for (std::size_t i = 0; i < src.size(); i += 4)
    if (std::isfinite(src[i]))
      src[i] = std::bit_cast<float>((std::bit_cast<std::uint32_t>(src[i]) & 0xFFFF0000u) | 0x8000u);
  const auto dsrc = launchers_upload(src);
  DeviceBuffer<bf16> dst(src.size());
  cast_bf16(CastBf16Params{dsrc.get(), dst.get(), static_cast<std::int64_t>(src.size())}, stream_);
  sync();
  const auto got = launchers_download(dst);
  for (std::size_t i = 0; i < src.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint16_t>(got[i]), std::bit_cast<std::uint16_t>(__float2bfloat16_rn(src[i])))
        << src[i];
}

TEST_F(EmuLaunchers, PackStatsAndAddRowsEqualTwins) {
  std::mt19937_64 g(17);
  std::uniform_real_distribution<float> u(-3, 30);
  const int hq = 5;
  const std::int64_t sq = 67, row0 = 9, rows = 41;
  std::vector<float> lse(static_cast<std::size_t>(sq * hq)), stats(static_cast<std::size_t>(rows * hq));
  for (auto& x : lse) x = u(g);
  const auto dlse = launchers_upload(lse);
  DeviceBuffer<float> dstats(stats.size());
  pack_stats(PackStatsParams{dlse.get(), dstats.get(), row0, rows, hq}, stream_);
  sync();
  ref::pack_stats({lse.data(), stats.data(), row0, rows, hq});
  EXPECT_EQ(launchers_download(dstats), stats);
  // A piece's dK rows (keys × Hkv·D, contiguous) into a step's [K | V] gradients (row stride 2·Hkv·D),
  // then a strided source too.
  const std::int64_t width = 24, n_rows = 13;
  for (const std::int64_t src_stride : {width, width + 5}) {
    std::vector<float> acc(static_cast<std::size_t>(n_rows * 2 * width)),
        piece(static_cast<std::size_t>(n_rows * src_stride));
    for (auto& x : acc) x = u(g);
    for (auto& x : piece) x = u(g);
    auto dacc = launchers_upload(acc);
    const auto dpiece = launchers_upload(piece);
    add_rows(AddRowsParams{dacc.get() + width, dpiece.get(), n_rows, width, 2 * width, src_stride}, stream_);
    sync();
    ref::add_rows({acc.data() + width, piece.data(), n_rows, width, 2 * width, src_stride});
    EXPECT_EQ(launchers_download(dacc), acc) << "source stride " << src_stride;
  }
  // The launchers refuse as the device's: overlapping blocks, a stride shorter than the width.
  DeviceBuffer<float> same(64);
  EXPECT_THROW(add_rows(AddRowsParams{same.get(), same.get() + 4, 2, 8, 8, 8}, stream_), Error);
  EXPECT_THROW(add_rows(AddRowsParams{same.get(), same.get() + 32, 2, 8, 4, 8}, stream_), Error);
  EXPECT_THROW(cast_bf16(CastBf16Params{same.get(), reinterpret_cast<bf16*>(same.get()), 8}, stream_), Error);
}

// --- fill

TEST_F(EmuLaunchers, FillIsBitExact) {
  for (const auto tensor : {ref::Tensor::q, ref::Tensor::k, ref::Tensor::v}) {
    const SegmentList segs{Segment{5, 3, 40}, Segment{0, 1, 0}, Segment{1000, 1, 1100}};
    ref::FillParams p;
    p.seed = 42, p.tensor = tensor, p.heads = 2, p.head_dim = 64, p.round_as = DType::bfloat16;
    const std::int64_t rows = total_count(segs);
    DeviceBuffer<bf16> out(static_cast<std::size_t>(rows * p.heads * p.head_dim));
    fill_inputs(out.get(), segs, p, stream_);
    sync();
    const auto got = launchers_download(out);
    std::vector<double> twin(got.size());
    ref::fill_inputs(twin.data(), segs, p);
    std::size_t e = 0;
    for (const Segment& s : segs)
      for (std::int64_t i = 0; i < s.count; ++i)
        for (int h = 0; h < p.heads; ++h)
          for (int x = 0; x < p.head_dim; ++x, ++e) {
            const bf16 device = __double2bfloat16(ref::input_value(p.seed, tensor, p.heads, p.head_dim, s.pos(i), h,
                                                                   x));
            ASSERT_EQ(std::bit_cast<std::uint16_t>(got[e]), std::bit_cast<std::uint16_t>(device)) << "element " << e;
            ASSERT_EQ(static_cast<double>(__bfloat162float(got[e])), twin[e]) << "element " << e;
          }
    ASSERT_EQ(e, got.size());
  }
}

// --- stamps

TEST_F(EmuLaunchers, StampedCopyMovesBytesAndStamps) {
  std::vector<std::uint8_t> in(1000);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 13 + 1);
  const auto src = launchers_upload(in);
  DeviceBuffer<std::uint8_t> dst(in.size());
  DeviceBuffer<ExecStamp> stamps(2);
  RB_CUDA_CHECK(cudaMemsetAsync(stamps.get(), 0, stamps.bytes(), stream_));
  stamped_copy(StampedCopyParams{dst.get(), src.get() + 1, 999, stamps.get()}, stream_);  // unaligned
  stamped_copy(StampedCopyParams{nullptr, nullptr, 0, stamps.get() + 1}, stream_);        // stamps only
  sync();
  const auto out = launchers_download(dst);
  for (std::size_t i = 0; i < 999; ++i) ASSERT_EQ(out[i], in[i + 1]) << "byte " << i;
  EXPECT_EQ(out[999], 0xFF);  // poison: not copied
  for (const ExecStamp& s : launchers_download(stamps)) EXPECT_TRUE(stamp_valid(s));
}

// The 2-D copy packs one member's heads of every row; another stream writing the bytes between
// those rows at the same time is no race (each row is declared where it lies), and the gaps keep
// what that stream wrote.
TEST_F(EmuLaunchers, StampedCopy2dMovesStridedRowsAndDeclaresOnlyThem) {
  const std::int64_t rows = 7, row_bytes = 96, slice = 32, at = 32;
  std::vector<std::uint8_t> in(static_cast<std::size_t>(rows * row_bytes));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 7 + 3);
  const auto src = launchers_upload(in);
  DeviceBuffer<std::uint8_t> dst(in.size());
  DeviceBuffer<ExecStamp> stamp(1);
  RB_CUDA_CHECK(cudaMemsetAsync(stamp.get(), 0, stamp.bytes(), stream_));
  RB_CUDA_CHECK(cudaMemsetAsync(dst.get(), 0, dst.bytes(), stream_));
  sync();
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  stamped_copy_2d(StampedCopy2dParams{dst.get() + at, row_bytes, src.get() + at, row_bytes, slice, rows, stamp.get()},
                  stream_);
  RB_CUDA_CHECK(cudaMemsetAsync(dst.get(), 0x5A, static_cast<std::size_t>(at), other));  // row 0's first bytes
  sync();
  RB_CUDA_CHECK(cudaStreamSynchronize(other));
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
  const auto out = launchers_download(dst);
  for (std::int64_t i = 0; i < rows * row_bytes; ++i) {
    const std::int64_t col = i % row_bytes;
    const std::uint8_t want = col >= at && col < at + slice ? in[static_cast<std::size_t>(i)] : (i < at ? 0x5A : 0);
    ASSERT_EQ(out[static_cast<std::size_t>(i)], want) << "byte " << i;
  }
  EXPECT_TRUE(stamp_valid(launchers_download(stamp)[0]));
  EXPECT_THROW(stamped_copy_2d(StampedCopy2dParams{dst.get(), 8, src.get(), 8, 16, 1, stamp.get()}, stream_), Error);
}

TEST_F(EmuLaunchers, ClockProbeWritesOnceFromTheProbeSm) {
  DeviceBuffer<ClockStamp> stamps(2);
  RB_CUDA_CHECK(cudaMemsetAsync(stamps.get(), 0xFF, stamps.bytes(), stream_));  // sm == kNoSm
  clock_probe({stamps.get(), 132}, stream_);
  clock_probe({stamps.get() + 1, 132}, stream_);
  sync();
  const auto first = launchers_download(stamps);
  ASSERT_EQ(first[0].sm, kClockProbeSm);
  ASSERT_EQ(first[1].sm, kClockProbeSm);
  EXPECT_LE(first[0].ns, first[1].ns);
  const ClockSpan span{first[0], first[1]};
  EXPECT_TRUE(clock_mhz(std::span(&span, 1)).has_value() || first[0].ns == first[1].ns);
  clock_probe({stamps.get(), 4}, stream_);  // claimed: left as it was
  sync();
  const auto again = launchers_download(stamps);
  EXPECT_EQ(again[0].ns, first[0].ns);
  EXPECT_EQ(again[0].cycles, first[0].cycles);
}

TEST_F(EmuLaunchers, LinkPaceHoldsTheStampOpenForItsTime) {
  DeviceBuffer<ExecStamp> stamps(2);
  RB_CUDA_CHECK(cudaMemsetAsync(stamps.get(), 0, stamps.bytes(), stream_));
  constexpr std::int64_t kPaceNs = 3'000'000;
  stamped_copy(StampedCopyParams{nullptr, nullptr, 0, stamps.get()}, stream_);
  link_pace(stamps.get(), kPaceNs, stream_);
  link_pace(stamps.get() + 1, kPaceNs, stream_);  // never started: no wait, the end still folded
  sync();
  const auto s = launchers_download(stamps);
  ASSERT_TRUE(stamp_valid(s[0]));
  EXPECT_GE(s[0].end - stamp_begin(s[0]), static_cast<std::uint64_t>(kPaceNs));
  EXPECT_LT(s[0].end - stamp_begin(s[0]), static_cast<std::uint64_t>(kPaceNs) * 20);  // no runaway wait
  EXPECT_EQ(s[1].inv_begin, 0u);
  EXPECT_GT(s[1].end, 0u);
}

// --- capture: the launches' work holds its params by value, so a graph replays them after the
// params (and the host vectors they were built from) are gone.

TEST_F(EmuLaunchers, CapturedLaunchesReplay) {
  const int d = 64, hq = 2;
  const std::int64_t rows = 33;
  const auto n = static_cast<std::size_t>(rows * hq);
  DeviceBuffer<float> oa(n * d), la(n), ob(n * d), lb(n);
  RB_CUDA_CHECK(cudaMemsetAsync(oa.get(), 0, oa.bytes(), stream_));
  RB_CUDA_CHECK(cudaMemsetAsync(la.get(), 0, la.bytes(), stream_));
  std::vector<float> ones(n * d, 1.f), zeros(n, 0.f);
  RB_CUDA_CHECK(cudaMemcpy(ob.get(), ones.data(), ob.bytes(), cudaMemcpyHostToDevice));
  RB_CUDA_CHECK(cudaMemcpy(lb.get(), zeros.data(), lb.bytes(), cudaMemcpyHostToDevice));
  cudaGraph_t graph = nullptr;
  RB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  {
    const MergeParams p{oa.get(), la.get(), ob.get(), lb.get(), rows, hq, d};
    merge_partials(p, stream_);
  }
  RB_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec = nullptr;
  RB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // O_a = 0, L_a = 0 merged with O_b = 1, L_b = 0 twice: L = log 2, then log 3; O = 1/2, then 2/3.
  for (int i = 0; i < 2; ++i) RB_CUDA_CHECK(cudaGraphLaunch(exec, stream_));
  sync();
  std::vector<float> o_twin(n * d, 0.f), l_twin(n, 0.f);
  for (int i = 0; i < 2; ++i)
    ref::merge_partials(ref::MergeParams<float>{o_twin.data(), l_twin.data(), ones.data(), zeros.data(), rows, hq, d});
  EXPECT_EQ(launchers_download(oa), o_twin);
  EXPECT_EQ(launchers_download(la), l_twin);
  EXPECT_NEAR(l_twin[0], std::log(3.f), 1e-6f);
  RB_CUDA_CHECK(cudaGraphExecDestroy(exec));
  RB_CUDA_CHECK(cudaGraphDestroy(graph));
}

// --- the bounds rule: a merge whose partial O is one line short reads past that allocation's end.

TEST_F(EmuLaunchers, ReadingPastAnAllocationIsABoundsViolation) {
  const int d = 8, hq = 1;
  const std::int64_t rows = 4;
  DeviceBuffer<float> oa(rows * d), la(rows), ob((rows - 1) * d), lb(rows);
  EXPECT_THROW(merge_partials(MergeParams{oa.get(), la.get(), ob.get(), lb.get(), rows, hq, d}, stream_), Error);
  bool seen = false;
  for (const emu::Violation& v : emu::violations()) seen = seen || (v.rule == "bounds" && v.call == "merge_partials");
  EXPECT_TRUE(seen) << launchers_violations_text();
  emu::clear_violations();
  (void)cudaGetLastError();
}

}  // namespace
}  // namespace rb::kernels
