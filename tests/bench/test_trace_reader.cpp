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
  };
  for (const auto& c : cases) {
    const InputError e = error_of(c.text);
    EXPECT_EQ(e.where(), c.where) << c.text;
    EXPECT_NE(e.value().find(c.value_has), std::string::npos) << c.text << " -> value " << e.value();
    EXPECT_FALSE(e.rule().empty()) << c.text;
  }
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
