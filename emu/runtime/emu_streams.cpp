// The emulated device's streams and events, and rb::emu::launch, the one door kernels come in by.
// A stream is a queue of ops; an event's record is a marker op its waiters follow; the host's
// waits (synchronize, event query) run what they wait for (emu_scheduler.cpp).
#include <utility>

#include "emu/runtime/emu_state.hpp"

namespace rb::emu::detail {

const void* find_handle(const State& st, const void* h, State::HandleKind kind) {
  const auto it = st.handles.find(h);
  return it != st.handles.end() && it->second == kind ? h : nullptr;
}

StreamRec* stream_of(State& st, cudaStream_t s) {
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread)
    return st.legacy.at(static_cast<std::size_t>(current_device())).get();
  auto* r = static_cast<StreamRec*>(const_cast<void*>(find_handle(st, s, State::HandleKind::stream)));
  return r != nullptr && !r->destroyed ? r : nullptr;
}

EventRec* event_of(State& st, cudaEvent_t e) {
  auto* r = static_cast<EventRec*>(const_cast<void*>(find_handle(st, e, State::HandleKind::event)));
  return r != nullptr && !r->destroyed ? r : nullptr;
}

namespace {

cudaError_t bad_stream(State& st, const char* call, cudaStream_t s) {
  violate(st, "handle", call, "?",
          "a destroyed or unknown stream (" + std::to_string(reinterpret_cast<std::uintptr_t>(s)) + ")");
  return fail(cudaErrorInvalidResourceHandle);
}

cudaError_t bad_event(State& st, const char* call) {
  violate(st, "handle", call, "?", "a destroyed or unknown event");
  return fail(cudaErrorInvalidResourceHandle);
}

cudaError_t create_stream(cudaStream_t* out, unsigned flags) {
  auto lk = lock();
  State& st = state();
  if (out == nullptr) return fail(cudaErrorInvalidValue);
  auto r = std::make_unique<StreamRec>();
  r->id = static_cast<int>(st.streams.size()) + 1;
  r->device = current_device();
  r->nonblocking = (flags & cudaStreamNonBlocking) != 0;
  *out = reinterpret_cast<cudaStream_t>(r.get());
  st.handles.emplace(r.get(), State::HandleKind::stream);
  st.streams.push_back(std::move(r));
  return cudaSuccess;
}

cudaError_t create_event(cudaEvent_t* out, unsigned flags) {
  auto lk = lock();
  State& st = state();
  if (out == nullptr) return fail(cudaErrorInvalidValue);
  auto r = std::make_unique<EventRec>();
  r->id = static_cast<int>(st.events.size()) + 1;
  r->device = current_device();
  r->timing = (flags & cudaEventDisableTiming) == 0;
  *out = reinterpret_cast<cudaEvent_t>(r.get());
  st.handles.emplace(r.get(), State::HandleKind::event);
  st.events.push_back(std::move(r));
  return cudaSuccess;
}

cudaError_t record(cudaEvent_t e, cudaStream_t stream, unsigned flags, const char* call) {
  auto lk = lock();
  State& st = state();
  EventRec* ev = event_of(st, e);
  if (ev == nullptr) return bad_event(st, call);
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return bad_stream(st, call, stream);
  if (s->capture) {
    if (s->capture->invalidated) return fail(cudaErrorStreamCaptureInvalidated);
    if ((flags & cudaEventRecordExternal) != 0) {
      // An event-record node: each launch of the graph records the event.
      Node n;
      n.name = "event record";
      n.stream = s->name();
      n.records = ev;
      if (const cudaError_t err = add_node(st, *s, std::move(n)); err != cudaSuccess) return err;
    }
    ev->capture = s->capture;
    ev->nodes = s->frontier;
    return cudaSuccess;
  }
  Op op;
  op.name = "event record";
  op.work = stamp_event(ev);
  ev->last = ref_of(st, add_op(st, *s, std::move(op)));
  ev->capture = nullptr;
  ev->nodes.clear();
  return cudaSuccess;
}

// The host waits for an event, or a stream: illegal while this thread captures.
cudaError_t host_wait(State& st, const char* call, const std::optional<OpRef>& r) {
  if (const cudaError_t e = unsafe_during_capture(st, call); e != cudaSuccess) return fail(e);
  wait_for(st, r);
  return st.sticky == cudaSuccess ? cudaSuccess : fail(st.sticky);
}

}  // namespace
}  // namespace rb::emu::detail

using namespace rb::emu;
using namespace rb::emu::detail;

namespace rb::emu {

cudaError_t launch(cudaStream_t stream, std::string name, std::vector<Access> accesses, std::function<void()> work) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return bad_stream(st, name.c_str(), stream);
  if (st.sticky != cudaSuccess) return fail(st.sticky);
  // An access outside every live allocation would write the host's heap: the op does not run (nor
  // joins a graph), and the launch fails as a faulting kernel would.
  for (const Access& a : accesses)
    if (!check_access(st, a, name, s->name())) return fail(cudaErrorIllegalAddress);
  if (s->capture) {
    Node n;
    n.name = std::move(name);
    n.stream = s->name();
    n.accesses = std::move(accesses);
    n.work = std::move(work);
    return add_node(st, *s, std::move(n));
  }
  Op op;
  op.name = std::move(name);
  op.accesses = std::move(accesses);
  op.work = std::move(work);
  add_op(st, *s, std::move(op));
  return cudaSuccess;
}

std::string stream_name(cudaStream_t stream) {
  auto lk = lock();
  const StreamRec* s = stream_of(state(), stream);
  return s ? s->name() : "unknown stream";
}

}  // namespace rb::emu

extern "C" {

cudaError_t cudaStreamCreate(cudaStream_t* s) { return create_stream(s, cudaStreamDefault); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int flags) { return create_stream(s, flags); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr || s->legacy) return bad_stream(st, "cudaStreamDestroy", stream);
  if (s->capture) {
    violate(st, "capture", "cudaStreamDestroy", s->name(), "destroys a stream that is capturing");
    return fail(cudaErrorStreamCaptureUnsupported);
  }
  s->destroyed = true;  // its queued work still runs, as CUDA's does
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return bad_stream(st, "cudaStreamSynchronize", stream);
  return host_wait(st, "cudaStreamSynchronize", s->tail);
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return bad_stream(st, "cudaStreamQuery", stream);
  return host_wait(st, "cudaStreamQuery", s->tail);
}

cudaError_t cudaDeviceSynchronize(void) {
  auto lk = lock();
  State& st = state();
  if (const cudaError_t e = unsafe_during_capture(st, "cudaDeviceSynchronize"); e != cudaSuccess) return fail(e);
  wait_all(st);
  return st.sticky == cudaSuccess ? cudaSuccess : fail(st.sticky);
}

cudaError_t cudaEventCreate(cudaEvent_t* e) { return create_event(e, cudaEventDefault); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int flags) { return create_event(e, flags); }

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  auto lk = lock();
  State& st = state();
  EventRec* ev = event_of(st, e);
  if (ev == nullptr) return bad_event(st, "cudaEventDestroy");
  ev->destroyed = true;  // kept: a queued record still stamps it, harmlessly
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return record(e, s, 0, "cudaEventRecord"); }
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  return record(e, s, flags, "cudaEventRecordWithFlags");
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t e, unsigned int) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return bad_stream(st, "cudaStreamWaitEvent", stream);
  EventRec* ev = event_of(st, e);
  if (ev == nullptr) return bad_event(st, "cudaStreamWaitEvent");
  if (ev->capture && ev->capture->active) {
    Capture* c = ev->capture;
    if (s->capture == nullptr) {  // a fork: s joins the capture, after the record
      s->capture = c;
      s->frontier = ev->nodes;
      c->streams.push_back(s);
      return cudaSuccess;
    }
    if (s->capture != c) {
      violate(st, "capture", "cudaStreamWaitEvent", s->name(), "waits on an event recorded in another capture");
      s->capture->invalidated = c->invalidated = true;
      return fail(cudaErrorStreamCaptureIsolation);
    }
    for (Node* n : ev->nodes)
      if (std::find(s->frontier.begin(), s->frontier.end(), n) == s->frontier.end()) s->frontier.push_back(n);
    return cudaSuccess;
  }
  if (s->capture) {
    violate(st, "capture", "cudaStreamWaitEvent", s->name(),
            "waits on an event never recorded in this capture (recorded outside it, or never)");
    s->capture->invalidated = true;
    return fail(cudaErrorStreamCaptureIsolation);
  }
  if (!ev->last || !in_epoch(st, *ev->last)) return cudaSuccess;  // never recorded, or known done
  Op op;
  op.name = "cudaStreamWaitEvent";
  add_op(st, *s, std::move(op), {ev->last->id});
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e) {
  auto lk = lock();
  State& st = state();
  EventRec* ev = event_of(st, e);
  if (ev == nullptr) return bad_event(st, "cudaEventQuery");
  return host_wait(st, "cudaEventQuery", ev->last);
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  auto lk = lock();
  State& st = state();
  EventRec* ev = event_of(st, e);
  if (ev == nullptr) return bad_event(st, "cudaEventSynchronize");
  return host_wait(st, "cudaEventSynchronize", ev->last);
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  auto lk = lock();
  State& st = state();
  EventRec* a = event_of(st, start);
  EventRec* b = event_of(st, end);
  if (a == nullptr || b == nullptr) return bad_event(st, "cudaEventElapsedTime");
  if (ms == nullptr) return fail(cudaErrorInvalidValue);
  if (!a->timing || !b->timing || !a->last || !b->last) return fail(cudaErrorInvalidResourceHandle);
  if (!has_run(st, *a->last) || !has_run(st, *b->last)) return fail(cudaErrorNotReady);
  *ms = static_cast<float>(static_cast<double>(b->time_ns - a->time_ns) / 1e6);
  return cudaSuccess;
}

}  // extern "C"
