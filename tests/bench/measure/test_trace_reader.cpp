// The trace reader on Kineto-shaped input and on bad input: every error names the file, the JSON
// path, the value and the rule.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "bench/measure/kernel_classify.hpp"
#include "bench/measure/trace_reader.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

const char* kKinetoLike = R"json({
  "distributedInfo": {"rank": 3},
  "traceEvents": [
    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": 10, "dur": 50},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 9, "ts": 1682725898082228, "dur": 10.5, "args": {"stream": 9}},
    {"ph": "X", "cat": "kernel", "name": "void gemm<float>()", "pid": 0, "tid": 7, "ts": 1682725898082230, "dur": 3.25, "args": {"stream": 7}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 1682725898082240, "dur": 2.0, "args": {"stream": 7, "bytes": 64}},
    {"ph": "X", "cat": "Kernel", "name": "ncclDevKernel_SendRecv", "pid": 0, "tid": 7, "ts": 1682725898082250.5, "dur": 1}
  ]})json";

TEST(TraceReader, ReadsGpuEventsOfKinetoTracesAndClassifiesByName) {
  const TraceFile tf = parse_trace_text(kKinetoLike, "k.json");
  EXPECT_EQ(tf.format, "kineto");
  EXPECT_EQ(tf.skipped_events, 2u);  // metadata and the CPU op
  ASSERT_EQ(tf.timeline.intervals.size(), 4u);
  const auto& v = tf.timeline.intervals;
  EXPECT_EQ(v[0].rank, 3);
  EXPECT_EQ(v[0].kind, IntervalKind::comm);
  EXPECT_EQ(v[0].lane, "stream 9");
  EXPECT_EQ(v[0].begin_ns, 1682725898082228000);
  EXPECT_EQ(v[0].end_ns, 1682725898082238500);
  EXPECT_EQ(v[1].kind, IntervalKind::compute);
  EXPECT_EQ(v[2].kind, IntervalKind::memory);
  EXPECT_EQ(v[2].bytes, 64);
  EXPECT_EQ(v[3].kind, IntervalKind::comm);  // ^nccl
  EXPECT_EQ(v[3].lane, "stream 7");          // from thread_name metadata, trimmed
  EXPECT_EQ(v[3].begin_ns, 1682725898082250500);
  EXPECT_EQ(tf.timeline.window_begin_ns, 1682725898082228000);
  EXPECT_EQ(tf.timeline.window_end_ns, 1682725898082251500);
  EXPECT_EQ(tf.role_classified, 0u);
}

// cuDNN's fused attention is compute by name alone (HTA's rule: not NCCL, not a memcpy or memset),
// in the generated, precompiled and cutlass/xmma spellings; NCCL's kernels and the copies are not.
TEST(KernelClassify, CudnnAttentionKernelsAreComputeAndNcclAndCopiesAreNot) {
  for (const char* name : {
           "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0",
           "sm90_flash_fprop_wgmma_f16_knob_7_128x128x64",
           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
           "kernel__5x_cudnn",
           "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>>>("
           "cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>>::Params)",
       })
    EXPECT_EQ(classify_kernel_name(name), IntervalKind::compute) << name;
  for (const char* name : {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
                           "ncclKernel_AllGather_RING_LL_Sum_int8_t", "void ncclKernel_SendRecv_RING_SIMPLE()"})
    EXPECT_EQ(classify_kernel_name(name), IntervalKind::comm) << name;
  for (const char* name : {"Memcpy DtoD (Device -> Device)", "Memcpy PtoP (Device -> Device)", "Memset (Device)"})
    EXPECT_EQ(classify_kernel_name(name), IntervalKind::memory) << name;
}

TEST(TraceReader, StatedStreamRoleWinsOverTheNameAndDifferencesAreCounted) {
  TraceReadOptions opt;
  opt.stream_roles["stream 7"] = IntervalKind::comm;
  const TraceFile tf = parse_trace_text(kKinetoLike, "k.json", opt);
  EXPECT_EQ(tf.timeline.intervals[1].kind, IntervalKind::comm);
  EXPECT_EQ(tf.by_name.intervals[1].kind, IntervalKind::compute);
  EXPECT_EQ(tf.role_classified, 3u);
  EXPECT_EQ(tf.differing, 2u);  // the gemm and the memcpy on stream 7
}

InputError error_of(const std::string& text) {
  try {
    parse_trace_text(text, "bad.json");
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for: " << text;
  return InputError("", "", "");
}

TEST(TraceReader, BadInputNamesFilePathValueAndRule) {
  struct Case {
    std::string text, where, value_has;
  };
  const std::vector<Case> cases = {
      {"not json", "bad.json: byte 2", "malformed JSON"},
      {"42", "bad.json#", "42"},
      {R"({"events": []})", "bad.json#/traceEvents", "missing"},
      {R"({"traceEvents": {}})", "bad.json#/traceEvents", "{}"},
      {R"({"traceEvents": [3]})", "bad.json#/traceEvents/0", "3"},
      {R"({"traceEvents": [{"name": "x"}]})", "bad.json#/traceEvents/0/ph", "missing"},
      {R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "dur": 1}]})", "bad.json#/traceEvents/0/ts",
       "missing"},
      {R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "5", "dur": 1}]})",
       "bad.json#/traceEvents/0/ts", "\"5\""},
      {R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": -1}]})",
       "bad.json#/traceEvents/0/dur", "-1"},
      {R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 5, "dur": 1}]})", "bad.json#/traceEvents/0/name",
       "missing"},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 5, "dur": 1, "pid": 0, "args": {"kind": "gpu"}}],
           "otherData": {"producer": "ringbench", "ringbench_trace_version": 1}})",
       "bad.json#/traceEvents/0/args/kind", "\"gpu\""},
      {R"({"otherData": {"producer": "ringbench"}, "traceEvents": [{"ph": "X", "name": "a", "ts": 5, "dur": 1, "pid": -2, "args": {"kind": "comm"}}]})",
       "bad.json#/traceEvents/0/pid", "-2"},
      {R"({"otherData": {"producer": "ringbench"}, "traceEvents": [{"ph": "X", "name": "a", "ts": 5, "dur": 1, "pid": 0}]})",
       "bad.json#/traceEvents/0/args/kind", "missing"},
      {R"({"distributedInfo": {"rank": "zero"}, "traceEvents": []})", "bad.json#/distributedInfo/rank", "zero"},
      // Sums past int64 ns: a huge dur, and an origin that pushes ts over (the origin may follow the events).
      {R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 9e15, "dur": 9e15}]})",
       "bad.json#/traceEvents/0/dur", "9"},
      {R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 5, "dur": 1, "pid": 0, "args": {"kind": "comm"}}],
           "otherData": {"producer": "ringbench", "origin_ns": 9223372036854775807}})",
       "bad.json#/traceEvents/0/ts", "5"},
      // A NUL byte is named, not read as the end of the text.
      {std::string("{\"traceEvents\": [\0]}", 19), "bad.json: byte 18", "NUL"},
  };
  for (const auto& c : cases) {
    const InputError e = error_of(c.text);
    EXPECT_EQ(e.where(), c.where) << c.text;
    EXPECT_NE(e.value().find(c.value_has), std::string::npos) << c.text << " -> value " << e.value();
    EXPECT_FALSE(e.rule().empty()) << c.text;
  }
}

// A ringbench trace read with otherData after traceEvents, as a streaming reader meets it: the
// events wait for the metadata that says how to read them.
TEST(TraceReader, MetadataAfterTheEventsReadsLikeMetadataBefore) {
  const std::string events =
      R"("traceEvents": [{"ph": "X", "name": "attention", "ts": 5, "dur": 2, "pid": 7, "tid": 1, "args": {"kind": "compute", "step": 0}},
                         {"ph": "X", "cat": "cpu_op", "name": "host", "ts": 1, "dur": 1, "pid": 7}])";
  const std::string other =
      R"("otherData": {"producer": "ringbench", "ringbench_trace_version": 2, "origin_ns": 1000, "ranks": [{"pid": 7, "rank": 3}]})";
  const TraceFile before = parse_trace_text("{" + other + "," + events + "}", "a.json");
  const TraceFile after = parse_trace_text("{" + events + "," + other + "}", "b.json");
  for (const TraceFile* tf : {&before, &after}) {
    EXPECT_EQ(tf->format, "ringbench");
    ASSERT_EQ(tf->timeline.intervals.size(), 1u);
    EXPECT_EQ(tf->timeline.intervals[0].rank, 3);
    EXPECT_EQ(tf->timeline.intervals[0].begin_ns, 6000);
    EXPECT_EQ(tf->timeline.intervals[0].kind, IntervalKind::compute);
    EXPECT_EQ(tf->skipped_events, 1u);
  }
}

// What the reader keeps follows --max-trace-mb (one kept event per 512 bytes of the cap), so a file
// of tiny events cannot make it hold more than the cap allows; skipped events cost nothing.
TEST(TraceReader, KeptEventsAreBoundedByTheByteCap) {
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < 40; ++i)
    text += std::string(i ? "," : "") + R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1})";
  for (int i = 0; i < 400; ++i) text += R"(,{"ph":"i","name":"instant"})";
  text += "]}";
  TraceReadOptions opt;
  opt.max_bytes = 40 * 512;
  EXPECT_EQ(parse_trace_text(text, "t.json", opt).timeline.intervals.size(), 40u);
  opt.max_bytes = 39 * 512;
  try {
    parse_trace_text(text, "t.json", opt);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "t.json#/traceEvents/39");
    EXPECT_NE(e.rule().find("raise --max-trace-mb"), std::string::npos) << e.what();
  }
  // The bytes themselves: a trace one byte over the cap is refused, at the cap it is read.
  const std::string instants = text.substr(text.find(R"({"ph":"i")"));
  const std::string only_instants = R"({"traceEvents": [)" + instants;
  opt.max_bytes = only_instants.size();
  EXPECT_EQ(parse_trace_text(only_instants, "t.json", opt).skipped_events, 400u);
  opt.max_bytes = only_instants.size() - 1;
  EXPECT_THROW(parse_trace_text(only_instants, "t.json", opt), InputError);
}

// A compressed run of `0,` (a gzip bomb's shape) is refused at its first element, not after the
// whole array is built.
TEST(TraceReader, AnArrayOfNumbersIsRefusedAtItsFirstElement) {
  std::string text = "[";
  for (int i = 0; i < 1'000'000; ++i) text += "0,";
  text += "0]";
  const InputError e = error_of(text);
  EXPECT_EQ(e.where(), "bad.json#/0");
}

TEST(TraceReader, ReadsGzipAndRejectsTruncatedGzipAndMissingFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "ringbench_test_trace_reader";
  std::filesystem::create_directories(dir);
  const auto gz = dir / "t.json.gz";
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const std::string text = kKinetoLike;
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(f);
  EXPECT_EQ(read_trace_file(gz).timeline.intervals.size(), 4u);

  const auto cut = dir / "cut.json.gz";
  std::filesystem::copy_file(gz, cut, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut, std::filesystem::file_size(gz) / 2);
  EXPECT_THROW(read_trace_file(cut), InputError);

  try {
    read_trace_file(dir / "missing.json");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const InputError& e) {
    EXPECT_NE(e.where().find("missing.json"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb::bench
