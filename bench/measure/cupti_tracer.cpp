// CUPTI activity tracing (see cupti_tracer.hpp). CUPTI calls the buffer callbacks from its own
// threads, so every touch of the converter is under the tracer's mutex, and nothing may throw
// across the C callback boundary: errors found there are kept and raised by take().
#include "bench/measure/cupti_tracer.hpp"

#include <array>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "bench/measure/cupti_check.hpp"
#include "common/error.hpp"
#include "common/loaded_library.hpp"

namespace rb::bench {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;  // CUPTI's recommended 1-10 MB
constexpr std::size_t kBufferAlign = 8;         // ACTIVITY_RECORD_ALIGNMENT in CUPTI's samples
constexpr std::array kKinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                               CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MARKER};

std::mutex g_active_mu;
CuptiTracer* g_active = nullptr;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;  // a null buffer makes CUPTI drop records, which we count
  *max_records = 0;                    // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext ctx, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t /*size*/,
                               std::size_t valid_size) {
  {
    std::lock_guard lock(g_active_mu);
    if (g_active) g_active->on_buffer(ctx, stream_id, buffer, valid_size);
  }
  std::free(buffer);
}

}  // namespace

// From the loader's list, not dladdr on a CUPTI function, which names the executable itself where it
// was linked without PIE (common/loaded_library.hpp).
std::string cupti_library_path() { return loaded_library_path("libcupti.so"); }

CuptiTracer::CuptiTracer(CuptiConversionOptions options) : converter_(std::move(options)) {
  {
    std::lock_guard lock(g_active_mu);
    if (g_active) throw Error("a CUPTI tracer is already active; CUPTI activity tracing is process-wide");
    g_active = this;
  }
  try {
    RB_CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    for (auto kind : kKinds) RB_CUPTI_CHECK(cuptiActivityEnable(kind));
  } catch (...) {
    for (auto kind : kKinds) cuptiActivityDisable(kind);
    std::lock_guard lock(g_active_mu);
    g_active = nullptr;
    throw;
  }
}

CuptiTracer::~CuptiTracer() {
  // Errors are ignored here: a destructor must not throw, and the data already taken stays valid.
  for (auto kind : kKinds) cuptiActivityDisable(kind);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(g_active_mu);
  g_active = nullptr;
}

std::int64_t CuptiTracer::now_ns() {
  std::uint64_t t = 0;
  RB_CUPTI_CHECK(cuptiGetTimestamp(&t));
  return static_cast<std::int64_t>(t);
}

void CuptiTracer::set_stream_role(void* cuda_stream, int device, CuptiStreamRole role) {
  if (device < 0) throw Error(fmt::format("CUPTI stream role: device {} is not a device", device));
  std::uint32_t stream = 0;
  // A null context: CUPTI finds the stream's own.
  RB_CUPTI_CHECK(cuptiGetStreamIdEx(nullptr, static_cast<CUstream>(cuda_stream), 0, &stream));
  std::lock_guard lock(mu_);
  converter_.set_stream_role(static_cast<std::uint32_t>(device), stream, std::move(role));
}

void CuptiTracer::flush() { RB_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)); }

void CuptiTracer::on_buffer(CUcontext ctx, std::uint32_t stream_id, std::uint8_t* buffer,
                            std::size_t valid_size) noexcept {
  std::lock_guard lock(mu_);
  try {
    CUpti_Activity* record = nullptr;
    for (;;) {
      const CUptiResult st = cuptiActivityGetNextRecord(buffer, valid_size, &record);
      if (st == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // end of the buffer
      RB_CUPTI_CHECK(st);
      converter_.add(record);
    }
    std::size_t dropped = 0;
    RB_CUPTI_CHECK(cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped));
    dropped_ += dropped;
  } catch (const std::exception& e) {
    if (callback_error_.empty()) callback_error_ = e.what();
  }
}

Timeline CuptiTracer::take(std::int64_t window_begin_ns, std::int64_t window_end_ns) {
  flush();
  std::lock_guard lock(mu_);
  if (!callback_error_.empty()) {
    throw Error(fmt::format("reading CUPTI activity buffers failed: {}", std::exchange(callback_error_, {})));
  }
  return converter_.take(window_begin_ns, window_end_ns);
}

std::uint64_t cupti_graph_node_id(void* graph_node) {
  std::uint64_t id = 0;
  RB_CUPTI_CHECK(cuptiGetGraphNodeId(static_cast<CUgraphNode>(graph_node), &id));
  return id;
}

namespace {

void CUPTIAPI on_resource(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(cbdata);
  static_cast<CuptiCloneRecorder*>(userdata)->on_cloned(
      *static_cast<const CUpti_GraphData*>(resource->resourceDescriptor));
}

}  // namespace

CuptiCloneRecorder::CuptiCloneRecorder() {
  RB_CUPTI_CHECK(cuptiSubscribe(&subscriber_, on_resource, this));
  try {
    RB_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED));
  } catch (...) {
    cuptiUnsubscribe(subscriber_);
    throw;
  }
}

CuptiCloneRecorder::~CuptiCloneRecorder() { cuptiUnsubscribe(subscriber_); }

void CuptiCloneRecorder::on_cloned(const CUpti_GraphData& graph) noexcept {
  std::lock_guard lock(mu_);
  try {
    std::uint64_t original = 0, clone = 0;
    RB_CUPTI_CHECK(cuptiGetGraphNodeId(graph.originalNode, &original));
    RB_CUPTI_CHECK(cuptiGetGraphNodeId(graph.node, &clone));
    clones_.emplace(original, clone);
  } catch (const std::exception& e) {
    if (callback_error_.empty()) callback_error_ = e.what();
  }
}

std::multimap<std::uint64_t, std::uint64_t> CuptiCloneRecorder::clones() const {
  std::lock_guard lock(mu_);
  if (!callback_error_.empty())
    throw Error(fmt::format("recording CUDA graph node clones failed: {}", callback_error_));
  return clones_;
}

std::vector<std::uint64_t> with_clones(std::uint64_t id, const std::multimap<std::uint64_t, std::uint64_t>& clones) {
  std::vector<std::uint64_t> out{id};
  // Ids are unique, so the clone relation is a forest; the size bound only guards against a
  // cycle that a CUPTI bug could introduce.
  for (std::size_t i = 0; i < out.size() && out.size() <= clones.size() + 1; ++i) {
    const auto [lo, hi] = clones.equal_range(out[i]);
    for (auto it = lo; it != hi; ++it) out.push_back(it->second);
  }
  return out;
}

std::uint64_t CuptiTracer::dropped_records() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

std::size_t CuptiTracer::ignored_records() const {
  std::lock_guard lock(mu_);
  return converter_.ignored_records();
}

std::size_t CuptiTracer::unattributed_records() const {
  std::lock_guard lock(mu_);
  return converter_.unattributed();
}

}  // namespace rb::bench
