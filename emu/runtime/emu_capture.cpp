// The emulated device's stream capture and graphs. A capturing stream adds nodes to its capture's
// graph instead of ops; an event recorded in the capture and waited on by another stream forks that
// stream into the capture; cudaStreamEndCapture checks every forked stream joined back. A launch
// turns each node into an op, after the stream's last op and the same executable's last launch, with
// the graph's edges as dependencies, so replay follows the recorded order and nothing more.
#include <algorithm>
#include <set>
#include <thread>

#include "emu/runtime/emu_state.hpp"

namespace rb::emu::detail {

cudaError_t unsafe_during_capture(State& st, const char* call) {
  cudaError_t err = cudaSuccess;
  for (const auto& c : st.captures) {
    if (!c->active || c->mode == cudaStreamCaptureModeRelaxed) continue;
    if (c->mode == cudaStreamCaptureModeThreadLocal && c->thread != std::this_thread::get_id()) continue;
    violate(st, "capture", call, c->origin->name(),
            std::string(call) + " while a capture is open (capture " + std::to_string(c->id) +
                "): it may synchronise, which a graph cannot record");
    c->invalidated = true;
    err = cudaErrorStreamCaptureUnsupported;
  }
  return err;
}

cudaError_t add_node(State&, StreamRec& s, Node node) {
  Capture& c = *s.capture;
  if (c.invalidated) return fail(cudaErrorStreamCaptureInvalidated);
  node.graph = c.graph.get();
  node.index = c.graph->nodes.size();
  node.deps = s.frontier;
  c.graph->nodes.push_back(std::make_unique<Node>(std::move(node)));
  s.frontier = {c.graph->nodes.back().get()};
  return cudaSuccess;
}

namespace {

Graph* graph_of(State& st, cudaGraph_t g) {
  auto* r = static_cast<Graph*>(const_cast<void*>(find_handle(st, g, State::HandleKind::graph)));
  return r != nullptr && !r->destroyed ? r : nullptr;
}

Exec* exec_of(State& st, cudaGraphExec_t e) {
  auto* r = static_cast<Exec*>(const_cast<void*>(find_handle(st, e, State::HandleKind::exec)));
  return r != nullptr && !r->destroyed ? r : nullptr;
}

cudaError_t bad_handle(State& st, const char* call, const char* what) {
  violate(st, "handle", call, "?", std::string("a destroyed or unknown ") + what);
  return fail(cudaErrorInvalidResourceHandle);
}

// Every node `from` reaches backwards through dependencies, itself included.
std::set<const Node*> reached(const std::vector<Node*>& from) {
  std::set<const Node*> seen;
  std::vector<const Node*> todo(from.begin(), from.end());
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    todo.insert(todo.end(), n->deps.begin(), n->deps.end());
  }
  return seen;
}

}  // namespace
}  // namespace rb::emu::detail

using namespace rb::emu;
using namespace rb::emu::detail;

extern "C" {

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (s->legacy) return fail(cudaErrorStreamCaptureUnsupported);  // the legacy stream cannot capture
  if (s->capture) return fail(cudaErrorIllegalState);
  auto c = std::make_unique<Capture>();
  c->graph = std::make_unique<Graph>();
  c->origin = s;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->id = st.next_capture_id++;
  c->streams.push_back(s);
  s->capture = c.get();
  s->frontier.clear();
  st.captures.push_back(std::move(c));
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* out) {
  auto lk = lock();
  State& st = state();
  if (out) *out = nullptr;
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (s->capture == nullptr) return fail(cudaErrorIllegalState);
  Capture& c = *s->capture;
  cudaError_t err = cudaSuccess;
  if (c.origin != s) {
    violate(st, "capture", "cudaStreamEndCapture", s->name(), "ends a capture begun on " + c.origin->name());
    c.invalidated = true;
    err = cudaErrorStreamCaptureUnmatched;
  } else if (!c.invalidated) {
    const auto joined = reached(s->frontier);
    for (const StreamRec* t : c.streams) {
      if (t == s) continue;
      for (const Node* n : t->frontier) {
        if (joined.count(n) != 0) continue;
        violate(st, "capture", "cudaStreamEndCapture", t->name(),
                "forked into the capture and never joined back to " + s->name() + " (its last node '" + n->name +
                    "' is no dependency of the capture's end)");
        err = cudaErrorStreamCaptureUnjoined;
        break;
      }
    }
  }
  if (c.invalidated && err == cudaSuccess) err = cudaErrorStreamCaptureInvalidated;
  for (StreamRec* t : c.streams) {
    t->capture = nullptr;
    t->frontier.clear();
  }
  c.active = false;
  for (const auto& ev : st.events)
    if (ev->capture == &c) ev->nodes.clear();
  if (err != cudaSuccess) return fail(err);
  st.handles.emplace(c.graph.get(), State::HandleKind::graph);
  st.graphs.push_back(std::move(c.graph));
  if (out) *out = reinterpret_cast<cudaGraph_t>(st.graphs.back().get());
  return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status, unsigned long long* id,
                                     cudaGraph_t* graph, const cudaGraphNode_t** deps, const cudaGraphEdgeData** edges,
                                     size_t* n) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr || status == nullptr) return fail(cudaErrorInvalidValue);
  if (s->capture == nullptr) {
    *status = cudaStreamCaptureStatusNone;
    if (n) *n = 0;
    if (deps) *deps = nullptr;
    if (edges) *edges = nullptr;
    return cudaSuccess;
  }
  const Capture& c = *s->capture;
  *status = c.invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  if (id) *id = c.id;
  if (graph) *graph = reinterpret_cast<cudaGraph_t>(c.graph.get());
  s->info_deps.clear();
  for (Node* node : s->frontier) s->info_deps.push_back(reinterpret_cast<cudaGraphNode_t>(node));
  s->info_edges.assign(s->info_deps.size(), cudaGraphEdgeData{});
  if (deps) *deps = s->info_deps.empty() ? nullptr : s->info_deps.data();
  if (edges) *edges = s->info_edges.empty() ? nullptr : s->info_edges.data();
  if (n) *n = s->info_deps.size();
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  auto lk = lock();
  State& st = state();
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr || status == nullptr) return fail(cudaErrorInvalidValue);
  *status = s->capture == nullptr     ? cudaStreamCaptureStatusNone
            : s->capture->invalidated ? cudaStreamCaptureStatusInvalidated
                                      : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps, cudaGraphEdgeData* edges,
                                         size_t* n) {
  auto lk = lock();
  if (node == nullptr || n == nullptr) return fail(cudaErrorInvalidValue);
  const auto* nd = reinterpret_cast<const Node*>(node);
  if (deps == nullptr) {
    *n = nd->deps.size();
    return cudaSuccess;
  }
  const std::size_t k = std::min(*n, nd->deps.size());
  for (std::size_t i = 0; i < k; ++i) {
    deps[i] = reinterpret_cast<cudaGraphNode_t>(nd->deps[i]);
    if (edges) edges[i] = cudaGraphEdgeData{};
  }
  *n = k;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* out, cudaGraph_t graph, unsigned long long) {
  auto lk = lock();
  State& st = state();
  Graph* g = graph_of(st, graph);
  if (g == nullptr) return bad_handle(st, "cudaGraphInstantiate", "graph");
  if (out == nullptr) return fail(cudaErrorInvalidValue);
  auto e = std::make_unique<Exec>();
  for (const auto& n : g->nodes) {
    ExecNode x{n->name, n->stream, {}, n->accesses, n->work, n->records};
    for (const Node* d : n->deps) x.deps.push_back(d->index);
    e->nodes.push_back(std::move(x));
  }
  *out = reinterpret_cast<cudaGraphExec_t>(e.get());
  st.handles.emplace(e.get(), State::HandleKind::exec);
  st.execs.push_back(std::move(e));
  return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
  auto lk = lock();
  State& st = state();
  if (exec_of(st, exec) == nullptr) return bad_handle(st, "cudaGraphUpload", "graph executable");
  if (stream_of(st, stream) == nullptr) return bad_handle(st, "cudaGraphUpload", "stream");
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  auto lk = lock();
  State& st = state();
  Exec* e = exec_of(st, exec);
  if (e == nullptr) return bad_handle(st, "cudaGraphLaunch", "graph executable");
  StreamRec* s = stream_of(st, stream);
  if (s == nullptr) return bad_handle(st, "cudaGraphLaunch", "stream");
  if (s->capture) {
    violate(st, "capture", "cudaGraphLaunch", s->name(), "launches a graph into a capture (no child graphs here)");
    return fail(cudaErrorStreamCaptureUnsupported);
  }
  if (st.sticky != cudaSuccess) return fail(st.sticky);
  for (const ExecNode& x : e->nodes)
    for (const Access& a : x.accesses)
      if (!check_access(st, a, x.name, x.stream + " (graph)")) return fail(cudaErrorIllegalAddress);
  Op begin;
  begin.name = "cudaGraphLaunch";
  std::vector<OpId> after_last;
  if (e->last_join && in_epoch(st, *e->last_join)) after_last.push_back(e->last_join->id);
  const OpId first = add_op(st, *s, std::move(begin), after_last);
  std::vector<OpId> ids;
  ids.reserve(e->nodes.size());
  for (const ExecNode& x : e->nodes) {
    Op op;
    op.name = x.name;
    op.stream = x.stream + " (graph on " + s->name() + ")";
    op.accesses = x.accesses;
    op.work = x.records ? stamp_event(x.records) : x.work;
    std::vector<OpId> preds;
    for (std::size_t d : x.deps) preds.push_back(ids[d]);
    if (preds.empty()) preds.push_back(first);
    ids.push_back(add_op_after(st, std::move(op), std::move(preds)));
    if (x.records) {
      x.records->last = ref_of(st, ids.back());
      x.records->capture = nullptr;
      x.records->nodes.clear();
    }
  }
  Op join;
  join.name = "graph end";
  join.stream = s->name();
  ids.push_back(first);
  const OpId end = add_op_after(st, std::move(join), ids);
  s->tail = ref_of(st, end);
  e->last_join = s->tail;
  ++st.counters.graph_launches;
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  auto lk = lock();
  State& st = state();
  Graph* g = graph_of(st, graph);
  if (g == nullptr) return bad_handle(st, "cudaGraphDestroy", "graph");
  g->destroyed = true;  // the nodes are kept, events may still name them; their work is not
  for (const auto& n : g->nodes) {
    n->work = nullptr;
    n->accesses.clear();
  }
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  auto lk = lock();
  State& st = state();
  Exec* e = exec_of(st, exec);
  if (e == nullptr) return bad_handle(st, "cudaGraphExecDestroy", "graph executable");
  e->destroyed = true;
  e->nodes.clear();
  return cudaSuccess;
}

}  // extern "C"
