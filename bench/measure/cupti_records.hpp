// Conversion of raw CUPTI activity records into Timeline intervals on CUPTI's clock (docs/design.md §7):
// kernels (with their CUDA graph node ids), memcpy including peer-to-peer copies (MEMCPY2),
// memsets and NVTX markers. Kept apart from the tracer so that it is unit-tested on the CPU with
// records built in memory. Built only with CUPTI (RINGBENCH_HAVE_CUPTI).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <cupti_activity.h>
#include <cupti_version.h>

#include "common/timeline.hpp"

#if CUPTI_API_VERSION < 130000
#error "ringbench's CUPTI record conversion is written against the CUPTI 13 (CUDA 13) record layouts"
#endif

namespace rb::bench {

// The record structures CUPTI 13 delivers for the activity kinds ringbench enables.
using CuptiKernelRecord = CUpti_ActivityKernel10;       // CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
using CuptiMemcpyRecord = CUpti_ActivityMemcpy6;        // CUPTI_ACTIVITY_KIND_MEMCPY
using CuptiPeerCopyRecord = CUpti_ActivityMemcpyPtoP4;  // CUPTI_ACTIVITY_KIND_MEMCPY2
using CuptiMemsetRecord = CUpti_ActivityMemset4;        // CUPTI_ACTIVITY_KIND_MEMSET
using CuptiMarkerRecord = CUpti_ActivityMarker2;        // CUPTI_ACTIVITY_KIND_MARKER

// What the executor knows about one stream: whose it is and what it is for.
struct CuptiStreamRole {
  int rank = 0;
  IntervalKind kind = IntervalKind::compute;
  std::string lane;  // e.g. "rank 1 comm"
};

// What the executor recorded about one captured graph node. Virtual ranks share one device and a
// replayed graph's work is not reported on the capturing streams, so for graph replays only the
// node says whose work a record is and what it was.
struct CuptiNodeRole {
  int rank = 0;
  int step = -1;
  IntervalKind kind = IntervalKind::compute;
  std::string lane;  // e.g. "comm"
  std::string name;  // e.g. "attention", "kv_recv": the names the metrics look for; empty keeps the record's
};

struct CuptiConversionOptions {
  // (deviceId, streamId) → role. Streams not listed: rank = device id, lane "stream N", kind by
  // kernel name (HTA's rule, bench/measure/kernel_classify.hpp).
  std::map<std::pair<std::uint32_t, std::uint32_t>, CuptiStreamRole> streams;
  // CUPTI graph node id → role; takes precedence over the stream's role and the kernel name.
  std::map<std::uint64_t, CuptiNodeRole> nodes;
  int marker_rank = 0;        // markers carry no device: the rank they are filed under
  std::string marker_domain;  // keep only markers of this NVTX domain; empty keeps all
  // false: a record that neither a node nor a stream role claims is counted and left out, rather
  // than filed under rank = device id. The executor's pass is all labelled; what is not is its
  // set-up around the pass (stamp resets, clock probes, L2 flushes), which is no rank's work.
  bool keep_unattributed = true;
};

class CuptiRecordConverter {
 public:
  explicit CuptiRecordConverter(CuptiConversionOptions options = {});

  // States (or restates) the role of one (deviceId, streamId) for records added from now on.
  void set_stream_role(std::uint32_t device, std::uint32_t stream, CuptiStreamRole role) {
    opt_.streams[{device, stream}] = std::move(role);
  }

  // One record from an activity buffer; kinds other than the five above are counted and ignored.
  void add(const CUpti_Activity* record);

  // The intervals so far, with the window in CUPTI ns (end <= begin: no window); markers still
  // open are dropped. Leaves the converter empty.
  Timeline take(std::int64_t window_begin_ns = 0, std::int64_t window_end_ns = 0);

  std::size_t ignored_records() const { return ignored_; }
  // Intervals with a stated role (node or stream) whose kernel-name class differs from it.
  std::size_t differing() const { return differing_; }
  std::size_t open_markers() const { return open_markers_.size(); }
  // Records left out because no role claimed them (keep_unattributed = false).
  std::size_t unattributed() const { return unattributed_; }

 private:
  void add_interval(std::uint32_t device, std::uint32_t stream, std::string name, std::uint64_t start,
                    std::uint64_t end, std::int64_t bytes, std::uint64_t graph_node);
  void add_marker(const CuptiMarkerRecord& m);

  struct OpenMarker {
    std::uint64_t start = 0;
    std::string name, domain;
  };
  CuptiConversionOptions opt_;
  Timeline timeline_;
  std::map<std::uint32_t, OpenMarker> open_markers_;
  std::size_t ignored_ = 0, differing_ = 0, unattributed_ = 0;
};

// Where a traced pass's GPU work lies: from the first begin to the last end of every interval but
// `other` (markers, host annotations), and how long its ranks were at work: the union over ranks of
// each rank's own first-begin-to-last-end. Ranks that ran at once count once; ranks that ran one
// after another (the cuda backend's isolated mode) add up, without the host's gaps between them.
struct ActivitySpan {
  std::int64_t begin_ns = 0, end_ns = 0;
  std::int64_t ns = 0;
};
// nullopt without such an interval.
std::optional<ActivitySpan> activity_span(const Timeline& t);

// Kineto's names for copy kinds ("HtoD", "DtoD", "PtoP", ...).
std::string memcpy_kind_name(std::uint8_t copy_kind);

}  // namespace rb::bench
