// CUPTI activity records → Timeline intervals (see cupti_records.hpp).
#include "bench/measure/cupti_records.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "bench/measure/interval_set.hpp"
#include "bench/measure/kernel_classify.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

// Kernel names arrive mangled; demangled ones match what Kineto, Nsight and HTA's rule expect.
std::string demangle(const char* name) {
  if (name == nullptr) return "<unnamed kernel>";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : std::string(name);
}

std::int64_t to_ns(std::uint64_t t) {
  if (t > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw Error(fmt::format("CUPTI timestamp {} does not fit a signed 64-bit ns count", t));
  }
  return static_cast<std::int64_t>(t);
}

}  // namespace

std::string memcpy_kind_name(std::uint8_t copy_kind) {
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "Unknown";
  }
}

CuptiRecordConverter::CuptiRecordConverter(CuptiConversionOptions options) : opt_(std::move(options)) {}

void CuptiRecordConverter::add_interval(std::uint32_t device, std::uint32_t stream, std::string name,
                                        std::uint64_t start, std::uint64_t end, std::int64_t bytes,
                                        std::uint64_t graph_node) {
  Interval iv;
  const IntervalKind by_name = classify_kernel_name(name);
  if (auto n = opt_.nodes.find(graph_node); graph_node != 0 && n != opt_.nodes.end()) {
    iv.rank = n->second.rank;
    iv.step = n->second.step;
    iv.kind = n->second.kind;
    iv.lane = n->second.lane;
    iv.name = n->second.name.empty() ? std::move(name) : n->second.name;
    if (iv.kind != by_name) ++differing_;
  } else {
    if (auto it = opt_.streams.find({device, stream}); it != opt_.streams.end()) {
      iv.rank = it->second.rank;
      iv.kind = it->second.kind;
      iv.lane = it->second.lane;
      if (iv.kind != by_name) ++differing_;
    } else {
      if (!opt_.keep_unattributed) {
        ++unattributed_;
        return;
      }
      iv.rank = static_cast<int>(device);
      iv.kind = by_name;
      iv.lane = fmt::format("stream {}", stream);
    }
    iv.name = std::move(name);
  }
  iv.bytes = bytes;
  iv.begin_ns = to_ns(start);
  iv.end_ns = to_ns(end);
  iv.graph_node_id = graph_node;
  timeline_.intervals.push_back(std::move(iv));
}

void CuptiRecordConverter::add_marker(const CuptiMarkerRecord& m) {
  const std::string domain = m.domain ? m.domain : "";
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    auto it = open_markers_.find(m.id);
    if (it == open_markers_.end()) return;  // its start was filtered out or came before tracing
    Interval iv;
    iv.rank = opt_.marker_rank;
    iv.kind = IntervalKind::other;
    iv.lane = it->second.domain.empty() ? "nvtx" : "nvtx " + it->second.domain;
    iv.name = std::move(it->second.name);
    iv.begin_ns = to_ns(it->second.start);
    iv.end_ns = to_ns(m.timestamp);
    open_markers_.erase(it);
    timeline_.intervals.push_back(std::move(iv));
    return;
  }
  if (!opt_.marker_domain.empty() && domain != opt_.marker_domain) return;
  std::string name = m.name ? m.name : "";
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    open_markers_[m.id] = OpenMarker{m.timestamp, std::move(name), domain};
  } else if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    Interval iv;
    iv.rank = opt_.marker_rank;
    iv.lane = domain.empty() ? "nvtx" : "nvtx " + domain;
    iv.name = std::move(name);
    iv.begin_ns = iv.end_ns = to_ns(m.timestamp);
    timeline_.intervals.push_back(std::move(iv));
  }
}

void CuptiRecordConverter::add(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CuptiKernelRecord*>(record);
      add_interval(k->deviceId, k->streamId, demangle(k->name), k->start, k->end, 0, k->graphNodeId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* c = reinterpret_cast<const CuptiMemcpyRecord*>(record);
      add_interval(c->deviceId, c->streamId, "Memcpy " + memcpy_kind_name(c->copyKind), c->start, c->end,
                   static_cast<std::int64_t>(c->bytes), c->graphNodeId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* c = reinterpret_cast<const CuptiPeerCopyRecord*>(record);
      add_interval(c->deviceId, c->streamId,
                   fmt::format("Memcpy {} (device {} -> {})", memcpy_kind_name(c->copyKind), c->srcDeviceId,
                               c->dstDeviceId),
                   c->start, c->end, static_cast<std::int64_t>(c->bytes), c->graphNodeId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* s = reinterpret_cast<const CuptiMemsetRecord*>(record);
      add_interval(s->deviceId, s->streamId, "Memset", s->start, s->end, static_cast<std::int64_t>(s->bytes),
                   s->graphNodeId);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: add_marker(*reinterpret_cast<const CuptiMarkerRecord*>(record)); break;
    default: ++ignored_; break;
  }
}

Timeline CuptiRecordConverter::take(std::int64_t window_begin_ns, std::int64_t window_end_ns) {
  Timeline out = std::move(timeline_);
  timeline_ = Timeline{};
  open_markers_.clear();
  out.window_begin_ns = window_begin_ns;
  out.window_end_ns = window_end_ns;
  return out;
}

std::optional<ActivitySpan> activity_span(const Timeline& t) {
  std::map<int, Span> by_rank;
  for (const Interval& iv : t.intervals) {
    if (iv.kind == IntervalKind::other) continue;
    auto [it, fresh] = by_rank.try_emplace(iv.rank, Span{iv.begin_ns, iv.end_ns});
    if (!fresh) it->second = Span{std::min(it->second.begin, iv.begin_ns), std::max(it->second.end, iv.end_ns)};
  }
  if (by_rank.empty()) return std::nullopt;
  std::vector<Span> spans;
  ActivitySpan out{by_rank.begin()->second.begin, by_rank.begin()->second.end, 0};
  for (const auto& [rank, s] : by_rank) {
    spans.push_back(s);
    out.begin_ns = std::min(out.begin_ns, s.begin);
    out.end_ns = std::max(out.end_ns, s.end);
  }
  out.ns = total_length(union_of(std::move(spans)));
  return out;
}

}  // namespace rb::bench
